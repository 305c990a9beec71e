import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { callerKeyEnv } from '@lingua/grpc';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// Runs the built entry point (npm test builds first), as a supervisor would. The SIGTERM comes at
// `timeoutMs`, or as soon as the process prints a line containing `stopOn`.
function boot(entry: string, env: Record<string, string | undefined>, timeoutMs = 20_000, stopOn?: string) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  // a process that outlives its SIGTERM by 20 s is killed (status null): the test fails, the run goes on
  const bounded = [
    '-e',
    `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(path.join(ROOT, entry))}], { stdio: ['inherit', 'pipe', 'inherit'] });` +
      `const stop = () => c.kill('SIGTERM');` +
      `setTimeout(stop, ${timeoutMs}).unref();` +
      `let out = '';` +
      `c.stdout.on('data', (d) => { process.stdout.write(d); out += d; if (${JSON.stringify(stopOn ?? null)} !== null && out.includes(${JSON.stringify(stopOn ?? '')})) stop(); });` +
      `const hard = setTimeout(() => c.kill('SIGKILL'), ${timeoutMs + 20_000});` +
      `c.on('exit', (code, signal) => { clearTimeout(hard); process.exit(code ?? (signal === 'SIGKILL' ? 137 : 143)); });`,
  ];
  const run = spawnSync(process.execPath, bounded, { env: merged, encoding: 'utf8' });
  return { ...run, status: run.status === 137 ? null : run.status };
}

describe('configuration at boot', () => {
  it('When a service gets a malformed port, Then it exits with code 1 naming the variable', () => {
    const run = boot('services/identity/dist/main.js', { IDENTITY_HTTP_PORT: 'eighty' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/IDENTITY_HTTP_PORT/);
  });

  it('When production runs without its secrets, Then each deployable refuses to start and names what it needs', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: undefined, EMAIL_LINK_KEY: 'x' };
    const flashcards = boot('services/flashcards/dist/main.js', production);
    expect(flashcards.status).toBe(1);
    expect(flashcards.stderr).toMatch(/FLASHCARDS_ASSERTION_KEY: .*required when NODE_ENV=production/);
    // only identity and the gateway hold the client-token secret (docs/adr/0001-internal-assertions.md)
    expect(flashcards.stderr).not.toMatch(/JWT_SECRET/);
    const identity = boot('services/identity/dist/main.js', production);
    expect(identity.status).toBe(1);
    expect(identity.stderr).toMatch(/IDENTITY_ASSERTION_KEY: .*required when NODE_ENV=production/);
    const signer = boot('services/identity/dist/main.js', {
      ...production,
      IDENTITY_ASSERTION_KEY: 'k'.repeat(40),
    });
    expect(signer.status).toBe(1);
    expect(signer.stderr).toMatch(/JWT_SECRET: .*required when NODE_ENV=production/);
    const gateway = boot('gateway/dist/main.js', { ...production, JWT_SECRET: 'j'.repeat(40) });
    expect(gateway.status).toBe(1);
    for (const svc of ['IDENTITY', 'FLASHCARDS', 'SUBSCRIPTIONS', 'AI', 'NOTIFICATIONS'])
      expect(gateway.stderr).toMatch(new RegExp(`${svc}_ASSERTION_KEY: .*required when NODE_ENV=production`));
  });

  it('When production runs without the gRPC call keys, or with a development one, Then the service exits 1 naming it', () => {
    // docs/adr/0018-grpc-call-identity.md: a caller needs its signing key, a server its callers' public keys
    const production = { NODE_ENV: 'production', AI_ASSERTION_KEY: 'k'.repeat(40) };
    const ai = boot('services/ai/dist/main.js', production);
    expect(ai.status).toBe(1);
    expect(ai.stderr).toMatch(/AI_GRPC_SIGNING_KEY: .*required when NODE_ENV=production/);
    const server = boot('services/flashcards/dist/main.js', {
      NODE_ENV: 'production',
      FLASHCARDS_ASSERTION_KEY: 'k'.repeat(40),
    });
    expect(server.status).toBe(1);
    expect(server.stderr).toMatch(/IDENTITY_GRPC_PUBLIC_KEY: .*required when NODE_ENV=production/);
    expect(server.stderr).toMatch(/AI_GRPC_PUBLIC_KEY: .*required when NODE_ENV=production/);
    // the operator's key is optional: no operator access without it
    expect(server.stderr).not.toMatch(/OPERATOR_GRPC_PUBLIC_KEY/);
    const devKey = boot('services/ai/dist/main.js', {
      ...production,
      AI_GRPC_SIGNING_KEY: createHash('sha256').update('lingua-dev-grpc-call-key:ai').digest('base64'),
    });
    expect(devKey.status).toBe(1);
    expect(devKey.stderr).toMatch(/AI_GRPC_SIGNING_KEY: is a development key/);
  });

  it('When production keeps a development default for public URLs, audiences or SMTP, Then the service exits 1 naming it', () => {
    const keys = {
      NODE_ENV: 'production',
      EMAIL_LINK_KEY: Buffer.alloc(32, 1).toString('base64'),
      // valid gRPC call keys: this test is about the URLs, audiences and SMTP
      ...callerKeyEnv(),
    };
    const identity = boot('services/identity/dist/main.js', {
      ...keys,
      JWT_SECRET: 'j'.repeat(40),
      IDENTITY_ASSERTION_KEY: 'k'.repeat(40),
      IDENTITY_PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    });
    expect(identity.status).toBe(1);
    expect(identity.stderr).toMatch(/IDENTITY_PUBLIC_BASE_URL: must not point at a loopback address/);
    expect(identity.stderr).toMatch(/GOOGLE_AUDIENCES: .*required when NODE_ENV=production/);
    const notifications = boot('services/notifications/dist/main.js', {
      ...keys,
      NOTIFICATIONS_ASSERTION_KEY: 'k'.repeat(40),
      SMTP_HOST: 'localhost',
    });
    expect(notifications.status).toBe(1);
    expect(notifications.stderr).toMatch(/SMTP_HOST: must not be a loopback address/);
    expect(notifications.stderr).toMatch(/MAIL_FROM: .*required when NODE_ENV=production/);
  });

  it('When the gateway gets a bad service URL, Then it exits with code 1 naming the variable', () => {
    const run = boot('gateway/dist/main.js', { AI_HTTP_URL: 'not a url' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/AI_HTTP_URL/);
  });

  it('When MONGO_URL is not a MongoDB connection string, Then the service exits with code 1 naming the variable', () => {
    const run = boot('services/flashcards/dist/main.js', { MONGO_URL: 'mongodb://db-0:27017,,db-1:27017' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/MONGO_URL: empty host/);
  });

  it('When NATS_URL is a malformed seed list, Then the service exits with code 1 naming the variable', () => {
    const run = boot('services/identity/dist/main.js', { NATS_URL: 'nats://a:4222,http://b:4222' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/NATS_URL: "http:\/\/b:4222": scheme must be nats/);
  });

  it('When MONGO_URL is a multi-host replica-set string, Then the service gets past configuration and tries those hosts', () => {
    // nothing listens on ports 1 and 2: the service tries both, logs why neither answers and keeps
    // trying (not ready) until the SIGTERM sent once it has said so ends it cleanly
    const run = boot(
      'services/identity/dist/main.js',
      {
        MONGO_URL: 'mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0&authSource=admin',
        LOG_LEVEL: 'info',
        // ports of its own: the default ones may be another suite's
        IDENTITY_HTTP_PORT: '0',
        IDENTITY_GRPC_PORT: '0',
        IDENTITY_METRICS_PORT: '0',
      },
      30_000,
      'MongoDB unreachable',
    );
    expect(run.stderr).not.toMatch(/Invalid configuration/);
    const lines = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; mongo?: unknown; servers?: Record<string, string> });
    expect(lines.find((l) => l.msg === 'connecting to MongoDB')?.mongo).toMatchObject({
      hosts: ['127.0.0.1:1', '127.0.0.1:2'],
      replicaSet: 'rs0',
      dbName: 'lingua_identity',
    });
    expect(Object.keys(lines.find((l) => l.msg === 'MongoDB unreachable')?.servers ?? {}).sort()).toEqual([
      '127.0.0.1:1',
      '127.0.0.1:2',
    ]);
    expect(run.status).toBe(0);
  });
});
