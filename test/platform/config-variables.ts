import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import * as gateway from '../../gateway/src/config';
import * as ai from '../../services/ai/src/config';
import * as flashcards from '../../services/flashcards/src/config';
import * as identity from '../../services/identity/src/config';
import * as notifications from '../../services/notifications/src/config';
import * as subscriptions from '../../services/subscriptions/src/config';

// Which environment variables each deployable reads, found from its config module (shared by
// env-example.test.ts and deployment-contract.test.ts).

export const ROOT = path.resolve(__dirname, '../..');
export const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

export type Source = Record<string, string | undefined>;
type ConfigModule = Record<string, unknown>;

/** Each deployable's config module and its loader, imported the way the services import them. */
export const CONFIGS: Record<string, { module: ConfigModule; load: (source: Source) => unknown }> = {
  identity: { module: identity, load: identity.loadServiceConfig },
  flashcards: { module: flashcards, load: flashcards.loadServiceConfig },
  subscriptions: { module: subscriptions, load: subscriptions.loadServiceConfig },
  ai: { module: ai, load: ai.loadServiceConfig },
  notifications: { module: notifications, load: notifications.loadServiceConfig },
  gateway: { module: gateway, load: gateway.loadGatewayConfig },
};

const VARIABLE = /^[A-Z][A-Z0-9_]*$/;

/** The keys of every z.object inside a schema: through transforms (pipes), defaults, optionals... */
function objectKeys(schema: z.ZodType): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object':
      return Object.keys(def.shape as object);
    case 'pipe': // .transform() and .pipe() in zod 4; .refine()/.superRefine() add checks, no wrapper
      return [...objectKeys(def.in as z.ZodType), ...objectKeys(def.out as z.ZodType)];
    case 'intersection':
      return [...objectKeys(def.left as z.ZodType), ...objectKeys(def.right as z.ZodType)];
    case 'union':
      return (def.options as z.ZodType[]).flatMap(objectKeys);
    default:
      return def.innerType instanceof z.ZodType ? objectKeys(def.innerType) : [];
  }
}

/** The object-shape keys of every zod schema a config module exports (aiEnv, gatewayEnv, ...). */
function exportedSchemaKeys(module: ConfigModule): string[] {
  return Object.values(module)
    .filter((value): value is z.ZodType => value instanceof z.ZodType)
    .flatMap(objectKeys);
}

/**
 * The variables the module's loader looks up when it parses an (empty) environment. This also sees
 * schemas a module keeps private (subscriptions' settings) and keys zod only reaches at parse time.
 */
function variablesLoaderReads(load: (source: Source) => unknown): string[] {
  const seen = new Set<string>();
  const note = (key: string | symbol) => typeof key === 'string' && VARIABLE.test(key) && seen.add(key);
  // NODE_ENV is the one variable a process must be given (libs/config): everything else is left unset
  const given: Source = { NODE_ENV: 'test' };
  const source = new Proxy({} as Source, {
    get: (_target, key) => (note(key), typeof key === 'string' ? given[key] : undefined),
    has: (_target, key) => (note(key), typeof key === 'string' && key in given),
    getOwnPropertyDescriptor: (_target, key) =>
      note(key) && typeof key === 'string' && key in given
        ? { value: given[key], enumerable: true, configurable: true, writable: false }
        : undefined,
  });
  load(source);
  return [...seen];
}

/** Variable name → the deployables whose config reads it. */
export function variablesReadByConfigs(): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  for (const [name, { module, load }] of Object.entries(CONFIGS))
    for (const variable of new Set([...exportedSchemaKeys(module), ...variablesLoaderReads(load)]))
      readers.set(variable, [...(readers.get(variable) ?? []), name]);
  return readers;
}

/**
 * Variables read outside the config schemas, found by a narrow scan of the few places allowed to:
 * `process.env.X` in the shared libs (telemetry's OTEL_*, the health routes' APP_VERSION, the
 * FERRETDB_PORT in the default MONGO_URL) and `${X:-...}` / `${X:?...}` in docker-compose.yml (read
 * by compose from ./.env) and deploy/local/infra.sh (the local infrastructure without Docker).
 */
export function variablesReadOutsideSchemas(): Set<string> {
  const found = variablesReadByLibs();
  for (const file of ['docker-compose.yml', 'deploy/local/infra.sh'])
    for (const m of read(file).matchAll(/\$\{([A-Z][A-Z0-9_]*):[-?]/g)) found.add(m[1]!);
  return found;
}

/** `process.env.X` in the shared libs: read by every deployable that uses the lib. */
export function variablesReadByLibs(): Set<string> {
  const found = new Set<string>();
  const libSources = fs
    .readdirSync(path.join(ROOT, 'libs'))
    .flatMap((lib) => listTs(path.join('libs', lib, 'src')))
    .filter((file) => !file.endsWith('.test.ts'));
  for (const file of libSources)
    for (const m of read(file).matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) found.add(m[1]!);
  return found;
}

function listTs(dir: string): string[] {
  if (!fs.existsSync(path.join(ROOT, dir))) return [];
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? listTs(path.join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [path.join(dir, entry.name)]
          : [],
    );
}
