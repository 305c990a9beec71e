import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// Runs the built entry point (npm test builds first), as a supervisor would.
function boot(entry: string, env: Record<string, string | undefined>) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return spawnSync(process.execPath, [path.join(ROOT, entry)], {
    env: merged,
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('configuration at boot', () => {
  it('When a service gets a malformed port, Then it exits with code 1 naming the variable', () => {
    const run = boot('services/identity/dist/main.js', { IDENTITY_HTTP_PORT: 'eighty' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/IDENTITY_HTTP_PORT/);
  });

  it('When production runs without JWT_SECRET, Then the service refuses to start and says why', () => {
    const run = boot('services/flashcards/dist/main.js', { NODE_ENV: 'production', JWT_SECRET: undefined });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/JWT_SECRET: .*required when NODE_ENV=production/);
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
    // nothing listens on ports 1 and 2: the service tries both, gives up after its selection timeout, exits 1
    const run = boot('services/identity/dist/main.js', {
      MONGO_URL: 'mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0&authSource=admin',
      LOG_LEVEL: 'info',
    });
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
    expect(run.status).toBe(1);
  });
});
