import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConnectionString } from 'mongodb-connection-string-url';
import { generateCallKeys, publicKeyOf, signingKeyFrom } from '@lingua/grpc';
import { freePort, isolatedServiceEnv, mongoUrl, natsUrl, redisUrl, waitFor } from '@lingua/testing';
import { CONFIGS, ROOT, variablesReadByConfigs, variablesReadByLibs } from './config-variables';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startRedisHa, composeSentinelOverlay, COMPOSE_OVERLAY } = require('../../deploy/local/redis-ha') as {
  startRedisHa(options: object): Promise<{ stop(): Promise<void> }>;
  composeSentinelOverlay(coreComposeText: string): string;
  COMPOSE_OVERLAY: string;
};

// The deployment contract: each deployable's real production build (dist/main.js, NODE_ENV from
// the manifests) boots and turns ready with exactly the environment and mounted files that
// deploy/k8s (rendered by kustomize, decoded strictly into the k8s.io/api types by
// deploy/contract) and docker-compose.yml (rendered by `docker-compose config`) give it. Only what
// cannot be the same here is replaced: the infrastructure's addresses (the local FerretDB, NATS and
// Redis), the peers' addresses (the other processes of this test), ports (free ones), the listen
// address (loopback), secret values (random fixtures of the right shape), the mounted files
// (fixtures at a temporary path standing for the mount path, with the manifest's owner and mode)
// and the event stream and database names (isolated, so nothing is left behind).
// When the test runs as root, each process runs as the manifest's uid/gid, so the files mounted
// with the manifest's owner, group (fsGroup) and mode must be readable by it, and the checkout
// (root's) is as unwritable as the image's read-only root. Not covered: the image's own file list
// (runtime-files.test.ts), memory limits, and the containers' network policies.

const BUILD_DEADLINE_MS = 15 * 60_000; // the first build downloads modules and compiles kustomize
const READY_DEADLINE_MS = 60_000;

/** Where each deployable's build lives (the image's WORKDIR is /app/<path>). */
const SERVICE_PATHS: Record<string, string> = {
  gateway: 'gateway',
  identity: 'services/identity',
  flashcards: 'services/flashcards',
  subscriptions: 'services/subscriptions',
  ai: 'services/ai',
  notifications: 'services/notifications',
};

interface EnvVar {
  source: 'literal' | 'configMap' | 'secret';
  value?: string;
  configMap?: string;
  secret?: string;
  key: string;
}
interface Mount {
  path: string;
  readOnly: boolean;
  kind: string;
  source?: string;
  files?: { key: string; path: string; mode?: number }[];
}
interface Workload {
  name: string;
  servicePath?: string;
  ports: Record<string, number>;
  env: Record<string, EnvVar>;
  mounts: Mount[];
  securityContext: {
    runAsUser: number | null;
    runAsGroup: number | null;
    fsGroup?: number | null;
    runAsNonRoot: boolean;
    readOnlyRootFilesystem: boolean;
  };
  probes: Record<string, { path?: string; port?: number; command?: string[] }>;
  resources: Record<string, Record<string, string>>;
}
interface Contract {
  kubernetes: {
    objects: string[];
    deployments: Workload[];
    services: Record<string, { name: string; port: number; deployment: string; containerPort: number }[]>;
    secretExample: Record<string, string[]>;
  };
  compose?: { services: Workload[] };
  problems: string[];
}

// ---------------------------------------------------------------------------------------- fixtures

/** A secret value of the shape its consumer demands, by key name; an unknown key fails the test. */
function secretFixture(key: string, secrets: Map<string, string>): string {
  if (key === 'EMAIL_LINK_KEY') return randomBytes(32).toString('base64');
  // the gRPC callers' Ed25519 pairs: a public key is the pair of its caller's signing key
  const grpcKey = /^([A-Z]+)_GRPC_(SIGNING|PUBLIC)_KEY$/.exec(key);
  if (grpcKey?.[2] === 'SIGNING') return generateCallKeys().signingKey;
  if (grpcKey) return publicKeyOf(signingKeyFrom(secretValue(secrets, `${grpcKey[1]}_GRPC_SIGNING_KEY`)));
  if (key === 'JWT_SECRET' || key.endsWith('_ASSERTION_KEY')) return randomBytes(32).toString('hex');
  // the infrastructure users' passwords (docs/adr/0019); a Secret's URL is replaced by the local one
  if (key.endsWith('_PASSWORD')) return `p${randomBytes(24).toString('hex')}`;
  if (key in INFRA) return INFRA[key]!();
  throw new Error(`no fixture for the secret key ${key}: add its shape to deployment-contract.test.ts`);
}

/** Operator settings compose requires (`${X:?...}`) that are not secrets: example production values. */
const COMPOSE_SETTINGS: Record<string, string> = {
  IDENTITY_PUBLIC_BASE_URL: 'https://app.example.com',
  GOOGLE_AUDIENCES: 'contract-test.apps.googleusercontent.com',
  SMTP_HOST: 'smtp.example.com',
  MAIL_FROM: 'Lingua <no-reply@example.com>',
  APPLE_APP_APPLE_ID: '1234567890',
  APNS_KEY_ID: 'ABC123DEFG',
  APNS_TEAM_ID: 'DEF123GHIJ',
  APNS_TOPIC: 'com.example.lingua',
};

/** A self-signed certificate standing in for Apple's root (PEM), made by openssl. */
function appleRootPem(dir: string): string {
  const key = path.join(dir, 'apple-root.key');
  const cert = path.join(dir, 'apple-root.pem');
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-384',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=Contract Test Apple Root CA - G3/O=Lingua test',
  ]);
  const pem = fs.readFileSync(cert, 'utf8');
  new X509Certificate(pem); // a real certificate, or the fixture itself is broken
  return pem;
}

/** A Google service-account key file with a freshly generated RSA key. */
function googleServiceAccountJson(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'lingua-contract-test',
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: 'contract-test@lingua-contract-test.iam.gserviceaccount.com',
    client_id: '100000000000000000000',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
}

/** An APNs signing key as Apple's .p8 holds it: EC P-256, PKCS#8 PEM. */
const apnsP8 = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();

/** File contents by the variable that names the file. */
const FILE_FIXTURES: Record<string, (dir: string) => string> = {
  APPLE_ROOT_CERTS: appleRootPem,
  GOOGLE_SERVICE_ACCOUNT_KEY_FILE: () => googleServiceAccountJson(),
  APNS_KEY_FILE: apnsP8,
  FCM_SERVICE_ACCOUNT_FILE: () => googleServiceAccountJson(),
};

// ----------------------------------------------------------------------------- the rendered files

function runContract(composeRendered: string): { contract: Contract; ms: number } {
  const started = Date.now();
  const bin = execFileSync('bash', [path.join(ROOT, 'deploy/contract/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: BUILD_DEADLINE_MS,
  }).trim();
  let stdout: string;
  try {
    stdout = execFileSync(
      bin,
      [
        '-k8s',
        'deploy/k8s',
        '-secret-example',
        'deploy/k8s/secret.example.yaml',
        '-compose',
        composeRendered,
      ],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (err) {
    // exit 1 = problems found: the document still lists them
    stdout = (err as { stdout?: string }).stdout ?? '';
    if (!stdout) throw err;
  }
  return { contract: JSON.parse(stdout) as Contract, ms: Date.now() - started };
}

/** `docker-compose config` with the secrets and settings the compose file requires. */
function renderCompose(file: string, secrets: Map<string, string>): void {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...COMPOSE_SETTINGS };
  for (const key of composeRequiredVariables()) if (!(key in env)) env[key] = secretValue(secrets, key);
  const out = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  fs.writeFileSync(file, out);
}

/** `${X:?...}` in docker-compose.yml (or another compose file): what an operator must put in .env. */
function composeRequiredVariables(file = 'docker-compose.yml'): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...new Set([...text.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((m) => m[1]!))];
}

/** Whether a MongoDB connection string asks for writes acknowledged by a majority of the replica set. */
const pinsMajority = (url: string) => new ConnectionString(url).searchParams.get('w') === 'majority';

function secretValue(secrets: Map<string, string>, key: string): string {
  if (!secrets.has(key)) secrets.set(key, secretFixture(key, secrets));
  return secrets.get(key)!;
}

// --------------------------------------------------------------------------- the started processes

interface Started {
  name: string;
  proc: ChildProcess;
  output: () => string;
  exit: () => number | null | undefined;
}

interface Plan {
  name: string;
  servicePath: string;
  env: Record<string, string>;
  /** container port → the free port standing for it */
  ports: Map<number, number>;
  uid?: number;
  gid?: number;
}

/** Peers: a host name and port from the files → the free port of the process standing for them. */
type PeerResolver = (host: string, port: number) => number | undefined;

const INFRA: Record<string, () => string> = { MONGO_URL: mongoUrl, NATS_URL: natsUrl, REDIS_URL: redisUrl };
/**
 * The Sentinels the manifests name (docs/adr/0031) stand for one here, watching the local Redis
 * with a password of its own: a deployable boots only if it found the primary through it.
 */
const SENTINEL = {
  port: 0,
  master: `contract${process.pid}`,
  password: `p${randomBytes(12).toString('hex')}`,
};
const SENTINEL_INFRA: Record<string, () => string> = {
  REDIS_SENTINELS: () => `127.0.0.1:${SENTINEL.port}`,
  REDIS_SENTINEL_MASTER: () => SENTINEL.master,
  REDIS_SENTINEL_PASSWORD: () => SENTINEL.password,
};
const isAddr = (name: string) => name.endsWith('_ADDR');
const isHttpUrl = (name: string) => name.endsWith('_HTTP_URL');

/** A variable a deployable needs from the files even though its config has a default (loopback there). */
const mustBeSet = (name: string) => name in INFRA || isAddr(name) || isHttpUrl(name);

function plan(
  w: Workload,
  secrets: Map<string, string>,
  fixtures: string,
  isolated: Record<string, string>,
  ports: Map<number, number>,
): Plan {
  const env: Record<string, string> = {};
  for (const [name, v] of Object.entries(w.env))
    env[name] = v.source === 'secret' ? secretValue(secrets, v.key) : (v.value ?? '');
  // mounted files: fixtures at <fixtures>/<mount path>, owned and readable as the kubelet makes them
  const root = path.join(fixtures, w.name);
  for (const mount of w.mounts) {
    if (mount.kind !== 'secret') continue;
    for (const file of mount.files ?? []) {
      const local = path.join(root, file.path);
      fs.mkdirSync(path.dirname(local), { recursive: true, mode: 0o755 });
      const reader = Object.keys(env).find((name) => env[name] === file.path);
      const make = reader ? FILE_FIXTURES[reader] : undefined;
      fs.writeFileSync(local, make ? make(fixtures) : `fixture for ${file.key}\n`);
      fs.chmodSync(local, file.mode ?? 0o644);
      if (isRoot()) fs.chownSync(local, 0, w.securityContext.fsGroup ?? 0);
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (!path.isAbsolute(value)) continue;
    const mount = w.mounts.find((m) => value === m.path || value.startsWith(`${m.path}/`));
    // a path on no mount is left as it is: the process finds no file there, as in the pod
    if (mount && mount.kind === 'secret') env[name] = path.join(root, value);
  }
  for (const name of Object.keys(env)) if (name in INFRA) env[name] = INFRA[name]!();
  for (const name of Object.keys(env)) if (name in SENTINEL_INFRA) env[name] = SENTINEL_INFRA[name]!();
  // the stream replica count belongs to the NATS deployment the URLs point at: here a single server
  if ('EVENTS_REPLICAS' in env) env.EVENTS_REPLICAS = '1';
  // so does the streams' size limit: JetStream reserves it on the file store, and three streams of
  // production's 10 GiB took half of a 60 GB store here (a run interrupted before its clean-up left
  // them reserved, and the next boot was refused "insufficient storage resources")
  if ('EVENTS_MAX_BYTES' in env) env.EVENTS_MAX_BYTES = String(64 * 1024 * 1024);
  if ('HOST' in env) env.HOST = '127.0.0.1';
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_PORT') || !/^\d+$/.test(value)) continue;
    const free = ports.get(Number(value));
    if (free !== undefined) env[name] = String(free);
  }
  // isolation: the stack's own stream, subjects and databases (removed after the file)
  for (const [name, value] of Object.entries(isolated))
    if (name === 'EVENTS_STREAM' || name === 'EVENTS_SUBJECT_PREFIX' || name.endsWith('_MONGO_DB'))
      env[name] = value;
  const p: Plan = { name: w.name, servicePath: w.servicePath ?? SERVICE_PATHS[w.name]!, env, ports };
  if (isRoot() && w.securityContext.runAsUser !== null) {
    p.uid = w.securityContext.runAsUser;
    p.gid = w.securityContext.runAsGroup ?? w.securityContext.runAsUser;
  }
  return p;
}

function resolvePeers(p: Plan, resolve: PeerResolver): string[] {
  const unresolved: string[] = [];
  for (const [name, value] of Object.entries(p.env)) {
    if (isAddr(name)) {
      const [host, port] = value.split(':');
      const free = resolve(host!, Number(port));
      if (free === undefined) unresolved.push(`${p.name}: ${name}=${value} leads to no deployable`);
      else p.env[name] = `127.0.0.1:${free}`;
    } else if (isHttpUrl(name)) {
      const url = new URL(value);
      const free = resolve(url.hostname, Number(url.port || 80));
      if (free === undefined) unresolved.push(`${p.name}: ${name}=${value} leads to no deployable`);
      else p.env[name] = `http://127.0.0.1:${free}${url.pathname === '/' ? '' : url.pathname}`;
    }
  }
  return unresolved;
}

const isRoot = () => process.getuid?.() === 0;

function start(p: Plan): Started {
  let output = '';
  let exit: number | null | undefined;
  const proc = spawn(process.execPath, ['dist/main.js'], {
    cwd: path.join(ROOT, p.servicePath),
    // exactly the planned environment: nothing inherited from this test process
    env: p.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(p.uid !== undefined ? { uid: p.uid, gid: p.gid } : {}),
  });
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  proc.once('exit', (code) => (exit = code));
  return { name: p.name, proc, output: () => output, exit: () => exit };
}

async function stopAll(started: Started[]): Promise<void> {
  await Promise.all(
    started.map(async (s) => {
      if (s.exit() !== undefined) return;
      const exited = new Promise((resolve) => s.proc.once('exit', resolve));
      s.proc.kill('SIGTERM');
      const timer = setTimeout(() => s.proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Waits until `check` passes (it throws saying why not); fails at once if the process exits. */
async function waitReady(s: Started, check: () => Promise<void>): Promise<void> {
  let stop = false;
  const exited = new Promise<never>((_resolve, reject) => {
    const fail = () =>
      stop || reject(new Error(`${s.name} exited with ${s.exit()} before it was ready:\n${s.output()}`));
    if (s.exit() !== undefined) fail();
    else s.proc.once('exit', fail);
  });
  // once settled (or the process exited) the poll ends at its next turn instead of running to the deadline
  const ready = waitFor(() => (stop ? Promise.resolve() : check()), {
    timeoutMs: READY_DEADLINE_MS,
    intervalMs: 250,
  }).catch((err: Error) => {
    throw new Error(
      `${s.name} did not turn ready within ${READY_DEADLINE_MS} ms (${err.message}):\n${s.output()}`,
    );
  });
  try {
    await Promise.race([ready, exited]);
  } finally {
    stop = true;
  }
}

/** Starts every planned process, waits until each passes its check, then stops them all (SIGTERM). */
async function bootAll(
  label: string,
  plans: Plan[],
  checkFor: (p: Plan, i: number) => () => Promise<void>,
): Promise<void> {
  const started = plans.map(start);
  const t0 = Date.now();
  let readyMs: number | undefined;
  try {
    const each: string[] = [];
    await Promise.all(
      plans.map(async (p, i) => {
        await waitReady(started[i]!, checkFor(p, i));
        each.push(`${p.name} ${Date.now() - t0} ms`);
      }),
    );
    readyMs = Date.now() - t0;
    process.stdout.write(`${label}: ready: ${each.join(', ')}\n`);
  } finally {
    const t1 = Date.now();
    await stopAll(started);
    process.stdout.write(
      `${label}: ${plans.length} processes ${readyMs === undefined ? 'failed' : `ready in ${readyMs} ms`}, stopped in ${Date.now() - t1} ms\n`,
    );
  }
}

async function httpReady(url: string): Promise<void> {
  const status = await fetch(url, { signal: AbortSignal.timeout(3000) }).then(
    (r) => r.status,
    (err: Error) => err.message,
  );
  if (status !== 200) throw new Error(`GET ${url}: ${status}`);
}

// --------------------------------------------------------------------------- variables read and set

const readers = variablesReadByConfigs();
const libReads = variablesReadByLibs();
const readBy = (deployable: string, name: string) =>
  (readers.get(name) ?? []).includes(deployable) || libReads.has(name);

/** Variables a deployable's config reads that must come from the files, and the config's own verdict. */
function missingVariables(w: Workload, env: Record<string, string>): string[] {
  const missing = [...readers]
    .filter(([name, by]) => by.includes(w.name) && mustBeSet(name) && !(name in w.env))
    .map(([name]) => `${w.name}: ${name} (read by its config; the default is a local address)`);
  const exit = jest.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Error(`exit ${code}`);
  });
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    CONFIGS[w.name]!.load(env);
  } catch {
    const said = stderr.mock.calls.map((c) => String(c[0])).join('');
    missing.push(`${w.name}: its config refuses the environment: ${said.trim()}`);
  } finally {
    exit.mockRestore();
    stderr.mockRestore();
  }
  return missing;
}

/** Variables naming an absolute path that no mounted Secret provides (the process would find nothing). */
function unmountedFiles(w: Workload): string[] {
  return (
    Object.entries(w.env)
      .filter(([, v]) => path.isAbsolute(v.value ?? ''))
      // a rendered secret is no path, even when its base64 begins with '/'
      .filter(([, v]) => ![...secrets.values()].includes(v.value!))
      .filter(([, v]) => !w.mounts.some((m) => m.files?.some((f) => f.path === v.value)))
      .map(([name, v]) => `${w.name}: ${name}=${v.value} is no file of a mounted volume`)
  );
}

// -------------------------------------------------------------------------------------------- tests

let contract: Contract;
let contractMs: number;
let workdir: string;
const secrets = new Map<string, string>();

beforeAll(() => {
  workdir = fs.mkdtempSync(path.join(tmpdir(), 'lingua-contract-'));
  fs.chmodSync(workdir, 0o755); // the processes run as the manifests' user
  const composeRendered = path.join(workdir, 'compose.rendered.yml');
  renderCompose(composeRendered, secrets);
  ({ contract, ms: contractMs } = runContract(composeRendered));
  process.stdout.write(`deploy/contract: built (if needed) and ran in ${contractMs} ms\n`);
}, BUILD_DEADLINE_MS);

let sentinel: { stop(): Promise<void> } | undefined;
beforeAll(async () => {
  SENTINEL.port = await freePort();
  sentinel = await startRedisHa({
    dir: path.join(workdir, 'sentinel'),
    nodePorts: [Number(new URL(redisUrl()).port || 6379)],
    sentinelPorts: [SENTINEL.port],
    masterName: SENTINEL.master,
    sentinelPass: SENTINEL.password,
    quorum: 1,
    sentinelsOnly: true,
  });
});

afterAll(async () => {
  await sentinel?.stop();
  fs.rmSync(workdir, { recursive: true, force: true });
});

describe('deploy/k8s', () => {
  it('When kustomize renders it, Then every object decodes strictly and every secret key it uses is in secret.example.yaml', () => {
    expect(contract.problems).toEqual([]);
    const deployments = contract.kubernetes.deployments.map((d) => d.name).sort();
    expect(deployments).toEqual(Object.keys(SERVICE_PATHS).sort());
    // each deployable is the base (deploy/k8s/base, objects named `app`) renamed: all five objects, none left as `app`
    const kinds = [
      'Deployment',
      'Service',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'ServiceAccount',
    ];
    const rendered = new Set(contract.kubernetes.objects);
    expect({
      missing: Object.keys(SERVICE_PATHS).flatMap((name) =>
        kinds.map((kind) => `${kind}/${name}`).filter((id) => !rendered.has(id)),
      ),
      fromBase: contract.kubernetes.objects.filter((id) => id.endsWith('/app')),
    }).toEqual({ missing: [], fromBase: [] });
  });

  it('When a deployable reads a variable that must come from the manifests, Then they set it; and they set nothing it does not read', () => {
    const missing: string[] = [];
    const unread: string[] = [];
    const sharedReaders = new Map<string, string[]>(); // ConfigMap key → deployables given it that read it
    for (const w of contract.kubernetes.deployments) {
      const env = Object.fromEntries(
        Object.entries(w.env).map(([n, v]) => [
          n,
          v.source === 'secret' ? secretValue(secrets, v.key) : v.value!,
        ]),
      );
      missing.push(...missingVariables(w, env));
      for (const [name, v] of Object.entries(w.env)) {
        if (v.source === 'configMap' && v.key === name) {
          // the shared ConfigMap goes to every deployable: enough that one it goes to reads each key
          sharedReaders.set(name, [
            ...(sharedReaders.get(name) ?? []),
            ...(readBy(w.name, name) ? [w.name] : []),
          ]);
        } else if (!readBy(w.name, name)) unread.push(`${w.name}: ${name}`);
      }
    }
    for (const [name, by] of sharedReaders)
      if (by.length === 0) unread.push(`ConfigMap lingua-config: ${name}`);
    expect({ missing, unread }).toEqual({ missing: [], unread: [] });
  });

  it('When a Deployment connects to Redis, Then it finds the primary through the Sentinels, with their password (docs/adr/0031)', () => {
    const wrong: string[] = [];
    for (const w of contract.kubernetes.deployments)
      for (const name of ['REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD'])
        if (w.env.REDIS_URL && !w.env[name]) wrong.push(`${w.name}: no ${name}`);
    expect(wrong).toEqual([]);
    const sentinels = contract.kubernetes.deployments.find((w) => w.name === 'gateway')!.env.REDIS_SENTINELS!;
    expect(sentinels.value!.split(',')).toHaveLength(3);
  });

  it('When a Deployment is described, Then it sets NODE_ENV itself (a process refuses to start without it), to production where it names a value', () => {
    const wrong = contract.kubernetes.deployments
      .filter(
        (w) =>
          !w.env.NODE_ENV || (w.env.NODE_ENV.value !== undefined && w.env.NODE_ENV.value !== 'production'),
      )
      .map((w) => `${w.name}: ${JSON.stringify(w.env.NODE_ENV ?? null)}`);
    expect(wrong).toEqual([]);
  });

  it('When a deployable connects to MongoDB, Then every connection string the secrets example gives pins w=majority (no write a failover can roll back)', () => {
    const text = fs.readFileSync(path.join(ROOT, 'deploy/k8s/secret.example.yaml'), 'utf8');
    const urls = [...text.matchAll(/MONGO_URL[:=]\s*"?(mongodb(?:\+srv)?:\/\/[^"\s]+)/g)].map((m) => m[1]!);
    // the five deployables with a database (all but the gateway), and the kubectl example
    expect(urls.length).toBe(6);
    expect(urls.filter((url) => !pinsMajority(url))).toEqual([]);
  });

  it('When a Deployment is described, Then it runs as a non-root user on a read-only root with a writable /tmp, and every file path it names is mounted', () => {
    const wrong: string[] = [];
    for (const w of contract.kubernetes.deployments) {
      const s = w.securityContext;
      if (!s.runAsNonRoot || !s.runAsUser || !s.readOnlyRootFilesystem)
        wrong.push(`${w.name}: securityContext ${JSON.stringify(s)}`);
      if (!w.mounts.some((m) => m.path === '/tmp' && m.kind === 'emptyDir'))
        wrong.push(`${w.name}: no /tmp emptyDir`);
      wrong.push(...unmountedFiles(w));
      for (const kind of ['startup', 'liveness', 'readiness'])
        if (!w.probes[kind]?.path || !w.probes[kind]?.port) wrong.push(`${w.name}: no ${kind} probe`);
    }
    expect(wrong).toEqual([]);
  });

  it(
    'When every deployable starts from its production build with the rendered environment and files, Then each passes its readiness, startup and liveness probes',
    async () => {
      const isolated = isolatedServiceEnv();
      const freeByDeployment = new Map<string, Map<number, number>>();
      for (const w of contract.kubernetes.deployments) {
        const ports = new Map<number, number>();
        for (const port of Object.values(w.ports)) ports.set(port, await freePort());
        freeByDeployment.set(w.name, ports);
      }
      const resolve: PeerResolver = (host, port) => {
        const target = contract.kubernetes.services[host]?.find((p) => p.port === port);
        return target && freeByDeployment.get(target.deployment)?.get(target.containerPort);
      };
      const plans = contract.kubernetes.deployments.map((w) =>
        plan(w, secrets, path.join(workdir, 'k8s'), isolated, freeByDeployment.get(w.name)!),
      );
      expect(plans.flatMap((p) => resolvePeers(p, resolve))).toEqual([]);
      await bootAll('deploy/k8s', plans, (p, i) => {
        // readiness, and then the startup and liveness probes answer 200 as well
        const { readiness, startup, liveness } = contract.kubernetes.deployments[i]!.probes;
        const url = (probe: { path?: string; port?: number }) =>
          `http://127.0.0.1:${p.ports.get(probe.port!)}${probe.path}`;
        return async () => {
          for (const probe of [readiness!, startup!, liveness!]) await httpReady(url(probe));
        };
      });
    },
    READY_DEADLINE_MS + 60_000,
  );
});

describe(COMPOSE_OVERLAY, () => {
  it('When it is made again from docker-compose.yml, Then it is the file written, and compose renders both files with three Sentinels, two replicas and every deployable sent to the Sentinels (docs/adr/0031)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const YAML = require('yaml') as { parse(text: string): unknown };
    const core = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(YAML.parse(fs.readFileSync(path.join(ROOT, COMPOSE_OVERLAY), 'utf8'))).toEqual(
      YAML.parse(composeSentinelOverlay(core)),
    );
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...COMPOSE_SETTINGS };
    for (const key of [...composeRequiredVariables(), ...composeRequiredVariables(COMPOSE_OVERLAY)])
      if (!(key in env)) env[key] = secretValue(secrets, key);
    const rendered = YAML.parse(
      execFileSync('docker-compose', ['-f', 'docker-compose.yml', '-f', COMPOSE_OVERLAY, 'config'], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      }),
    ) as { services: Record<string, { environment?: Record<string, string>; command?: string[] }> };
    const names = Object.keys(rendered.services);
    expect(names.filter((n) => n.startsWith('redis-sentinel-'))).toHaveLength(3);
    expect(names.filter((n) => n.startsWith('redis-replica-'))).toHaveLength(2);
    for (const deployable of Object.keys(SERVICE_PATHS)) {
      const e = rendered.services[deployable]!.environment!;
      expect([deployable, e.REDIS_SENTINELS?.split(',').length, e.REDIS_SENTINEL_MASTER]).toEqual([
        deployable,
        3,
        'lingua',
      ]);
    }
    expect(rendered.services['redis-replica-1']!.command).toEqual(
      expect.arrayContaining(['--replicaof', 'redis', '--masteruser', 'replica']),
    );
  });
});

describe('docker-compose.yml', () => {
  const services = () => contract.compose?.services ?? [];

  it('When compose renders it, Then every deployable is an app service with a healthcheck, non-root, read-only, and every file path it names is mounted', () => {
    expect(
      services()
        .map((s) => s.name)
        .sort(),
    ).toEqual(Object.keys(SERVICE_PATHS).sort());
    const wrong = services()
      .filter((s) => !s.securityContext.runAsNonRoot || !s.securityContext.readOnlyRootFilesystem)
      .map((s) => `${s.name}: ${JSON.stringify(s.securityContext)}`);
    wrong.push(...services().flatMap(unmountedFiles));
    expect(wrong).toEqual([]);
  });

  it('When compose describes a deployable, Then it sets NODE_ENV itself (a process refuses to start without it)', () => {
    const wrong = services()
      .filter(
        (w) =>
          !w.env.NODE_ENV || (w.env.NODE_ENV.value !== undefined && w.env.NODE_ENV.value !== 'production'),
      )
      .map((w) => `${w.name}: ${JSON.stringify(w.env.NODE_ENV ?? null)}`);
    expect(wrong).toEqual([]);
  });

  it("When a deployable connects to MongoDB, NATS or Redis, Then it logs in as itself with its own password variable, never another's (docs/adr/0019)", () => {
    const wrong: string[] = [];
    for (const w of services())
      for (const [name, infra] of [
        ['MONGO_URL', 'MONGO'],
        ['NATS_URL', 'NATS'],
        ['REDIS_URL', 'REDIS'],
      ] as const) {
        const value = w.env[name]?.value;
        if (value === undefined) continue;
        const url = new URL(value.split(',')[0]!);
        const own = secretValue(secrets, `${w.name.toUpperCase()}_${infra}_PASSWORD`);
        if (url.username !== w.name || decodeURIComponent(url.password) !== own)
          wrong.push(`${w.name}: ${name} logs in as ${url.username || 'nobody'}, not with its own password`);
      }
    expect(wrong).toEqual([]);
  });

  it('When a deployable connects to MongoDB, Then its connection string pins w=majority (no write a failover can roll back)', () => {
    const mongo = services().filter((w) => w.env.MONGO_URL?.value !== undefined);
    expect(mongo.map((w) => w.name).sort()).toEqual(
      Object.keys(SERVICE_PATHS)
        .filter((n) => n !== 'gateway')
        .sort(),
    );
    expect(mongo.filter((w) => !pinsMajority(w.env.MONGO_URL!.value!)).map((w) => w.name)).toEqual([]);
  });

  it('When a deployable reads a variable that must come from compose, Then compose sets it; and nothing it does not read', () => {
    const missing: string[] = [];
    const unread: string[] = [];
    for (const w of services()) {
      const env = Object.fromEntries(Object.entries(w.env).map(([n, v]) => [n, v.value!]));
      missing.push(...missingVariables(w, env));
      for (const name of Object.keys(w.env)) if (!readBy(w.name, name)) unread.push(`${w.name}: ${name}`);
    }
    expect({ missing, unread }).toEqual({ missing: [], unread: [] });
  });

  it(
    'When every deployable starts from its production build with the compose environment and secrets, Then each healthcheck passes',
    async () => {
      const isolated = isolatedServiceEnv();
      // compose has no port declarations: the *_PORT values a service listens on are its ports
      const freeByService = new Map<string, Map<number, number>>();
      for (const w of services()) {
        const ports = new Map<number, number>();
        for (const [name, v] of Object.entries(w.env))
          if (/(_HTTP_PORT|_GRPC_PORT|^GATEWAY_PORT)$/.test(name) && /^\d+$/.test(v.value ?? ''))
            ports.set(Number(v.value), await freePort());
        freeByService.set(w.name, ports);
      }
      const resolve: PeerResolver = (host, port) => freeByService.get(host)?.get(port);
      const plans = services().map((w) =>
        plan(w, secrets, path.join(workdir, 'compose'), isolated, freeByService.get(w.name)!),
      );
      expect(plans.flatMap((p) => resolvePeers(p, resolve))).toEqual([]);
      // compose leaves the metrics ports at their defaults (9400-9405), which another process on this
      // machine may hold (seen once: EADDRINUSE 9401 under load); the healthchecks do not read them
      for (const p of plans) {
        const name = p.name === 'gateway' ? 'GATEWAY_METRICS_PORT' : `${p.name.toUpperCase()}_METRICS_PORT`;
        p.env[name] ??= String(await freePort());
      }
      await bootAll('docker-compose.yml', plans, (p, i) => {
        // the healthcheck command itself, with the image's /app as this checkout and the port mapped
        const [, ...command] = services()[i]!.probes.healthcheck!.command!;
        expect(command[0]).toBe('node');
        const args = command
          .slice(1)
          .map((arg) =>
            arg
              .replace(/^\/app\//, `${ROOT}/`)
              .replace(
                /127\.0\.0\.1:(\d+)/g,
                (_all, port: string) => `127.0.0.1:${p.ports.get(Number(port)) ?? port}`,
              ),
          );
        // poll the cheap HTTP readiness first; each healthcheck run starts a node process
        const httpPort = Object.entries(p.env).find(([name]) =>
          /(_HTTP_PORT|^GATEWAY_PORT)$/.test(name),
        )?.[1];
        return async () => {
          if (httpPort) await httpReady(`http://127.0.0.1:${httpPort}/health/ready`);
          await promisify(execFile)(process.execPath, args, { timeout: 10_000 }).catch((err: Error) => {
            throw new Error(`healthcheck node ${args.join(' ')}: ${err.message}`);
          });
        };
      });
    },
    READY_DEADLINE_MS + 60_000,
  );
});
