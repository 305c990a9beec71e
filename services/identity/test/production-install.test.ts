import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  type AccessClaims,
  type AssertionAudience,
  createAssertionSigner,
} from '@lingua/auth';
import { freePort, isolatedServiceEnv, uniqueName, waitFor } from '@lingua/testing';
import { newUser } from './harness';

/*
 * identity as its container runs it: the production install the image holds (`npm install
 * --omit=dev --workspace services/identity` from the lock file, the compiled dist/ folders and
 * proto/), NODE_ENV=production, as uid 1000, with the whole app directory mounted read-only under
 * bubblewrap (Kubernetes: readOnlyRootFilesystem; only /tmp is writable, as an emptyDir would be).
 * Two such replicas on one database: an avatar uploaded through one is downloaded through the other.
 *
 * Needs `bwrap` (Debian: apt-get install bubblewrap), the npm cache (the install is offline-first,
 * about 10 s) and a built tree (`npm run build`, which `npm test` runs first).
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../..');
const SERVICE = 'services/identity';
const NODE = path.join(ROOT, 'node_modules/node/bin/node');
const hasBwrap = (() => {
  try {
    execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let app: string; // the image's /app, built here, mounted read-only
/** identity's key for the gateway's internal assertions (required in production); signed here as the gateway would. */
const ASSERTION_KEY = randomBytes(32).toString('hex');
const gateway = createAssertionSigner(
  Object.fromEntries(ASSERTION_AUDIENCES.map((aud) => [aud, ASSERTION_KEY])) as Record<
    AssertionAudience,
    string
  >,
);
/** What the gateway forwards to identity with a client's access token. */
function forwarded(token: string): Record<string, string> {
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as AccessClaims;
  return { authorization: `Bearer ${token}`, [ASSERTION_HEADER]: gateway.sign('identity', claims) };
}
const replicas: ChildProcess[] = [];

/** What the image's prod-deps and build stages produce (deploy/docker/Dockerfile), in `dir`. */
function productionInstall(dir: string) {
  const manifests = [
    'package.json',
    'package-lock.json',
    ...['libs', 'services']
      .flatMap((group) => readdirSync(path.join(ROOT, group)).map((d) => `${group}/${d}/package.json`))
      .filter((f) => existsSync(path.join(ROOT, f))),
    'gateway/package.json',
  ];
  for (const file of manifests) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  execFileSync(
    'npm',
    ['install', '--omit=dev', '--ignore-scripts', '--workspace', SERVICE, '--prefer-offline', '--no-audit'],
    { cwd: dir, stdio: 'ignore', timeout: 90_000, env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  // compiled libs and the service (the image copies every built dist/), and the .proto files
  for (const ws of [...readdirSync(path.join(ROOT, 'libs')).map((d) => `libs/${d}`), SERVICE]) {
    const dist = path.join(ROOT, ws, 'dist');
    if (existsSync(dist)) cpSync(dist, path.join(dir, ws, 'dist'), { recursive: true });
  }
  cpSync(path.join(ROOT, 'proto'), path.join(dir, 'proto'), { recursive: true });
}

/** bubblewrap: the host read-only, the app read-only, a private writable /tmp, uid 1000. */
const sandbox = (command: string[]) => [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  // the app at its own path (under the host's /tmp, which the tmpfs above hides), read-only; node
  // too (the repository, hence its node, may itself live under /tmp)
  '--ro-bind',
  app,
  app,
  '--ro-bind',
  NODE,
  NODE,
  '--unshare-user',
  '--uid',
  '1000',
  '--gid',
  '1000',
  '--unshare-pid',
  '--die-with-parent',
  '--chdir',
  path.join(app, SERVICE),
  ...command,
];

async function startReplica(env: Record<string, string>): Promise<string> {
  const httpPort = await freePort();
  const child = spawn('bwrap', sandbox([NODE, 'dist/main.js']), {
    env: { PATH: process.env.PATH ?? '', ...env, IDENTITY_HTTP_PORT: String(httpPort) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  replicas.push(child);
  const url = `http://127.0.0.1:${httpPort}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`identity exited ${code}: ${stderr}`))),
  );
  exited.catch(() => undefined);
  const ready = waitFor(async () => expect((await fetch(`${url}/health/ready`)).status).toBe(200), {
    timeoutMs: 45_000,
    intervalMs: 200,
  });
  await Promise.race([ready, exited]).catch((err: unknown) => {
    throw new Error(`identity did not become ready: ${String(err)}\n${stderr}`);
  });
  return url;
}

const describeIfBwrap = hasBwrap ? describe : describe.skip;

describeIfBwrap('identity from its production install, app directory read-only', () => {
  let urls: string[] = [];
  let filesBefore: string[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, SERVICE, 'dist/main.js'))) throw new Error('run `npm run build` first');
    app = mkdtempSync(path.join(tmpdir(), 'identity-image-'));
    productionInstall(app);
    filesBefore = listFiles(app);
    const test = isolatedServiceEnv();
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET: randomBytes(32).toString('hex'),
      IDENTITY_ASSERTION_KEY: ASSERTION_KEY,
      // production refuses the development defaults of these
      IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.example',
      GOOGLE_AUDIENCES: 'lingua-test.apps.googleusercontent.com',
      EMAIL_LINK_KEY: randomBytes(32).toString('base64'),
      IDENTITY_BCRYPT_COST: '4',
      IDENTITY_GRPC_PORT: '0',
      // a free metrics port each: two replicas (and other suites) share this machine
      IDENTITY_METRICS_PORT: '0',
      IDENTITY_MONGO_DB: uniqueName('prod_identity'),
      EVENTS_STREAM: test.EVENTS_STREAM!,
      EVENTS_SUBJECT_PREFIX: test.EVENTS_SUBJECT_PREFIX!,
      FLASHCARDS_ADDR: '127.0.0.1:1',
      ...(test.MONGO_URL && { MONGO_URL: test.MONGO_URL }),
      ...(test.NATS_URL && { NATS_URL: test.NATS_URL }),
      ...(test.REDIS_URL && { REDIS_URL: test.REDIS_URL }),
    };
    urls = [await startReplica(env), await startReplica(env)];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      replicas.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('When the sandbox writes into the app directory, Then it is refused (the mount is really read-only)', () => {
    expect(() =>
      execFileSync('bwrap', sandbox(['/bin/sh', '-c', `echo x > ${path.join(app, SERVICE, 'probe')}`]), {
        stdio: 'ignore',
      }),
    ).toThrow();
    expect(existsSync(path.join(app, SERVICE, 'probe'))).toBe(false);
  });

  it('When an avatar is uploaded through one replica, Then the other serves it, and no file was written', async () => {
    const [a, b] = urls as [string, string];
    const register = await fetch(`${a}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.8.7' },
      body: JSON.stringify(newUser()),
    });
    expect(register.status).toBe(201);
    const token = ((await register.json()) as { data: { accessToken: string } }).data.accessToken;

    const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2 * 1024 * 1024)]);
    const form = new FormData();
    form.append('avatar', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'me.png');
    const uploaded = await fetch(`${a}/api/users/profile`, {
      method: 'PUT',
      headers: forwarded(token),
      body: form,
    });
    expect(uploaded.status).toBe(200);
    const url = ((await uploaded.json()) as { data: { user: { profile: { avatarUrl: string } } } }).data.user
      .profile.avatarUrl;

    const served = await fetch(`${b}${url}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
    expect(listFiles(app)).toEqual(filesBefore);
  });
});

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false }) as string[];
}
