import type { OpenApiDocument } from './api-docs';

export interface MergeOptions {
  title: string;
  version: string;
  description?: string;
  servers?: Array<{ url: string; description?: string }>;
}

/**
 * Merges service fragments into one public document. Paths are owned by exactly one service, so a
 * path seen twice is a wiring bug; it is reported, and the first one kept. Same-named components
 * are the shared envelopes and security schemes, identical in every fragment.
 */
export function mergeApiDocuments(
  fragments: OpenApiDocument[],
  options: MergeOptions,
): { document: OpenApiDocument; conflicts: string[] } {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, Record<string, unknown>> = {};
  const conflicts: string[] = [];
  const tags = new Map<string, { name: string; description?: string }>();
  for (const fragment of fragments) {
    for (const [path, item] of Object.entries(fragment.paths ?? {})) {
      const target = (paths[path] ??= {});
      for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
        if (target[method]) conflicts.push(`${method.toUpperCase()} ${path}`);
        else target[method] = operation;
      }
    }
    for (const [kind, entries] of Object.entries(fragment.components ?? {}))
      Object.assign((components[kind] ??= {}), entries as Record<string, unknown>);
    for (const tag of fragment.tags ?? []) tags.set(tag.name, tag);
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    document: {
      openapi: '3.1.0',
      info: { title: options.title, version: options.version, description: options.description },
      servers: options.servers,
      tags: [...tags.values()],
      paths: sortedPaths,
      components,
    } as OpenApiDocument,
    conflicts,
  };
}
