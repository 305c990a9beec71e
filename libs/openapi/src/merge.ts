import type { OpenApiDocument } from './api-docs';
import { TAG_DESCRIPTIONS } from './tags';

export interface MergeOptions {
  title: string;
  version: string;
  description?: string;
  servers?: Array<{ url: string; description?: string }>;
}

type Operation = { operationId?: string; tags?: string[]; security?: Array<Record<string, string[]>> };

/**
 * Merges service fragments into one public document. Paths are owned by exactly one service, so a
 * path seen twice is a wiring bug; it is reported, and the first one kept, as is an operationId
 * used twice. Same-named components are the shared envelopes and security schemes, identical in
 * every fragment; schemes no operation uses are left out. Every tag used is declared, with its
 * description from TAG_DESCRIPTIONS.
 */
export function mergeApiDocuments(
  fragments: OpenApiDocument[],
  options: MergeOptions,
): { document: OpenApiDocument; conflicts: string[] } {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, Record<string, unknown>> = {};
  const conflicts: string[] = [];
  const operationIds = new Map<string, string>();
  const tags = new Map<string, { name: string; description: string }>();
  const schemesUsed = new Set<string>();
  for (const fragment of fragments) {
    for (const [path, item] of Object.entries(fragment.paths ?? {})) {
      const target = (paths[path] ??= {});
      for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (target[method]) {
          conflicts.push(where);
          continue;
        }
        target[method] = operation;
        if (operation.operationId) {
          const other = operationIds.get(operation.operationId);
          if (other) conflicts.push(`operationId ${operation.operationId}: ${other} and ${where}`);
          else operationIds.set(operation.operationId, where);
        }
        for (const requirement of operation.security ?? [])
          for (const scheme of Object.keys(requirement)) schemesUsed.add(scheme);
        for (const name of operation.tags ?? [])
          tags.set(name, { name, description: TAG_DESCRIPTIONS[name] ?? `Operations of ${name}.` });
      }
    }
    for (const [kind, entries] of Object.entries(fragment.components ?? {}))
      Object.assign((components[kind] ??= {}), entries as Record<string, unknown>);
  }
  if (components.securitySchemes)
    components.securitySchemes = Object.fromEntries(
      Object.entries(components.securitySchemes).filter(([name]) => schemesUsed.has(name)),
    );
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    document: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        description: options.description,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Lingua' },
        contact: { name: 'Lingua API team' },
      },
      servers: options.servers,
      tags: [...tags.values()].sort((a, b) => a.name.localeCompare(b.name)),
      paths: sortedPaths,
      components,
    } as OpenApiDocument,
    conflicts,
  };
}
