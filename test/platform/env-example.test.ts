import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import * as gateway from '../../gateway/src/config';
import * as ai from '../../services/ai/src/config';
import * as flashcards from '../../services/flashcards/src/config';
import * as identity from '../../services/identity/src/config';
import * as notifications from '../../services/notifications/src/config';
import * as subscriptions from '../../services/subscriptions/src/config';

// Keeps .env.example honest in both directions: every variable a config schema reads is documented
// there, and every variable documented there is read by something (no dead settings).

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

type Source = Record<string, string | undefined>;
type ConfigModule = Record<string, unknown>;

/** Each deployable's config module and its loader, imported the way the services import them. */
const CONFIGS: Record<string, { module: ConfigModule; load: (source: Source) => unknown }> = {
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
  const source = new Proxy({} as Source, {
    get: (_target, key) => (note(key), undefined),
    has: (_target, key) => (note(key), false),
    getOwnPropertyDescriptor: (_target, key) => (note(key), undefined),
  });
  load(source);
  return [...seen];
}

/** Variable name → the deployables whose config reads it. */
function variablesReadByConfigs(): Map<string, string[]> {
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
function variablesReadOutsideSchemas(): Set<string> {
  const found = new Set<string>();
  const libSources = fs
    .readdirSync(path.join(ROOT, 'libs'))
    .flatMap((lib) => listTs(path.join('libs', lib, 'src')))
    .filter((file) => !file.endsWith('.test.ts'));
  for (const file of libSources)
    for (const m of read(file).matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) found.add(m[1]!);
  for (const file of ['docker-compose.yml', 'deploy/local/infra.sh'])
    for (const m of read(file).matchAll(/\$\{([A-Z][A-Z0-9_]*):[-?]/g)) found.add(m[1]!);
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

interface Documented {
  name: string;
  value: string;
  commented: boolean;
  line: number;
}

/** `NAME=value` and `# NAME=value` lines of .env.example (prose comments never start with `WORD=`). */
function parseEnvExample(text: string): Documented[] {
  return text.split('\n').flatMap((raw, i) => {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(raw);
    if (!m) return [];
    const value = m[3]!.replace(/^"(.*)"$/, '$1'); // quoted when the value has spaces or <>
    return [{ name: m[2]!, value, commented: m[1] !== undefined, line: i + 1 }];
  });
}

/** Variables a compose file or Kubernetes manifest sets (environment:/data: blocks, `- name: X`). */
function variablesSetByDeployFile(text: string): string[] {
  const names: string[] = [];
  let blockIndent = -1;
  for (const line of text.split('\n')) {
    if (/^\s*(#|$)/.test(line)) continue;
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0 && indent <= blockIndent) blockIndent = -1;
    const key = /^\s+([A-Z][A-Z0-9_]*):/.exec(line);
    if (blockIndent >= 0 && key) names.push(key[1]!);
    if (/^\s*(environment|data|x-service-env):/.test(line)) blockIndent = indent;
    const listed = /^\s*-\s+name:\s+([A-Z][A-Z0-9_]*)\s*$/.exec(line);
    if (listed) names.push(listed[1]!);
  }
  return names;
}

const ENV_EXAMPLE = read('.env.example');
const documented = parseEnvExample(ENV_EXAMPLE);
const documentedNames = new Set(documented.map((d) => d.name));
const readers = variablesReadByConfigs();

describe('.env.example', () => {
  beforeAll(() => {
    // loadConfig exits the process on a bad config; make that a test failure instead.
    jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`a config loader called process.exit(${code}) on an empty environment`);
    });
  });
  afterAll(() => jest.restoreAllMocks());

  it('When the config schemas are introspected, Then every deployable reads its own ports', () => {
    // Guards the introspection itself: if it found nothing, the checks below would pass vacuously.
    for (const [name, variable] of [
      ['identity', 'IDENTITY_HTTP_PORT'],
      ['flashcards', 'FLASHCARDS_DUE_INDEX'],
      ['subscriptions', 'STORE_TIMEOUT_MS'],
      ['ai', 'AI_PROVIDER'],
      ['notifications', 'SMTP_HOST'],
      ['gateway', 'GATEWAY_PORT'],
    ] as const)
      expect(readers.get(variable)).toContain(name);
  });

  it('When a config schema reads a variable, Then .env.example documents it', () => {
    const missing = [...readers]
      .filter(([variable]) => !documentedNames.has(variable))
      .map(([variable, by]) => `${variable} (read by ${by.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('When .env.example documents a variable, Then some config or script reads it', () => {
    const outside = variablesReadOutsideSchemas();
    const dead = [...documentedNames].filter((name) => !readers.has(name) && !outside.has(name));
    expect(dead).toEqual([]);
  });

  it('When .env.example is read, Then each variable appears once, after a comment saying what it does', () => {
    const lines = ENV_EXAMPLE.split('\n');
    const duplicated = documented
      .filter((d, i) => documented.findIndex((o) => o.name === d.name) !== i)
      .map((d) => `${d.name} (line ${d.line})`);
    const undescribed = documented
      .filter((d) => {
        const above = lines[d.line - 2] ?? '';
        return !above.startsWith('#') || parseEnvExample(above).length > 0 || above.startsWith('# ----');
      })
      .map((d) => `${d.name} (line ${d.line})`);
    expect({ duplicated, undescribed }).toEqual({ duplicated: [], undescribed: [] });
  });

  it('When a documented default is set explicitly, Then every config that reads it comes out the same as unset', () => {
    // defaults that follow another variable when it is set (the CI rehearsal moves FerretDB's port)
    const derivedFrom: Record<string, string> = { MONGO_URL: 'FERRETDB_PORT' };
    const differing: string[] = [];
    for (const { name, value, commented } of documented) {
      if (commented) continue;
      const source = derivedFrom[name];
      if (source && process.env[source] !== undefined) continue;
      for (const reader of readers.get(name) ?? []) {
        const { load } = CONFIGS[reader]!;
        if (JSON.stringify(load({ [name]: value })) !== JSON.stringify(load({})))
          differing.push(`${name}=${value} (${reader})`);
      }
    }
    expect(differing).toEqual([]);
  });

  it('When docker-compose.yml or a Kubernetes manifest sets a variable, Then .env.example documents it', () => {
    const files = [
      'docker-compose.yml',
      ...fs
        .readdirSync(path.join(ROOT, 'deploy/k8s'))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => `deploy/k8s/${f}`),
    ];
    const undocumented = files.flatMap((file) =>
      [...new Set(variablesSetByDeployFile(read(file)))]
        .filter((name) => !documentedNames.has(name))
        .map((name) => `${name} (${file})`),
    );
    expect(undocumented).toEqual([]);
  });
});
