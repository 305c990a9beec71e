import { CONFIGS, read, ROOT, variablesReadByConfigs, variablesReadOutsideSchemas } from './config-variables';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Keeps .env.example honest in both directions: every variable a config schema reads is documented
// there, and every variable documented there is read by something (no dead settings).

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

const BUILD_DEADLINE_MS = 15 * 60_000; // a first build of the contract check compiles kustomize

/** `kustomize build deploy/k8s`, by the deployment contract check's kustomize (deploy/contract). */
function renderK8s(): string {
  const bin = execFileSync('bash', [path.join(ROOT, 'deploy/contract/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: BUILD_DEADLINE_MS,
  }).trim();
  return execFileSync(bin, ['-render', '-k8s', 'deploy/k8s'], { cwd: ROOT, encoding: 'utf8' });
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
        // NODE_ENV is the one variable every process must be given (libs/config)
        const given = { NODE_ENV: 'development' };
        if (JSON.stringify(load({ ...given, [name]: value })) !== JSON.stringify(load(given)))
          differing.push(`${name}=${value} (${reader})`);
      }
    }
    expect(differing).toEqual([]);
  });

  it(
    'When docker-compose.yml or a Kubernetes manifest sets a variable, Then .env.example documents it',
    () => {
      // the manifests as kustomize renders them (base + per-service patches), and the templates outside the kustomization
      const texts: [string, string][] = [
        ['docker-compose.yml', read('docker-compose.yml')],
        ['kustomize build deploy/k8s', renderK8s()],
        ...fs
          .readdirSync(path.join(ROOT, 'deploy/k8s'))
          .filter((f) => f.endsWith('.example.yaml'))
          .map((f): [string, string] => [`deploy/k8s/${f}`, read(`deploy/k8s/${f}`)]),
      ];
      const undocumented = texts.flatMap(([file, text]) =>
        [...new Set(variablesSetByDeployFile(text))]
          .filter((name) => !documentedNames.has(name))
          .map((name) => `${name} (${file})`),
      );
      expect(undocumented).toEqual([]);
    },
    BUILD_DEADLINE_MS,
  );
});
