import { API_DOCS_PATH, type OpenApiDocument } from '@lingua/openapi';
import type { ServiceName } from '../routes';

/**
 * Each service's OpenAPI fragment. The last good fragment of a service is kept, so a service that
 * is down (or restarting) does not vanish from the docs; a refresh waits `refreshMs` for it. A
 * service with no fragment yet gets `firstMs`: a busy service answers slowly, and a document
 * missing its operations would give a generated client nothing to call (seen under load: the
 * hostile-input test found a service's operations absent). A service that is down fails at once.
 */
export function createFragmentSource(
  services: Record<ServiceName, string>,
  { refreshMs = 1_500, firstMs = 10_000 }: { refreshMs?: number; firstMs?: number } = {},
) {
  const lastGood = new Map<ServiceName, OpenApiDocument>();
  return async function fragments(): Promise<{ documents: OpenApiDocument[]; missing: ServiceName[] }> {
    const names = Object.keys(services) as ServiceName[];
    const missing: ServiceName[] = [];
    await Promise.all(
      names.map(async (name) => {
        try {
          const res = await fetch(`${services[name]}${API_DOCS_PATH}`, {
            signal: AbortSignal.timeout(lastGood.has(name) ? refreshMs : firstMs),
          });
          if (!res.ok) throw new Error(`status ${res.status}`);
          const doc = (await res.json()) as Partial<OpenApiDocument>;
          if (typeof doc.openapi !== 'string' || typeof doc.paths !== 'object')
            throw new Error('not a document');
          lastGood.set(name, doc as OpenApiDocument);
        } catch {
          if (!lastGood.has(name)) missing.push(name);
        }
      }),
    );
    return { documents: names.flatMap((n) => lastGood.get(n) ?? []), missing };
  };
}
