import { spawn } from 'node:child_process';
import path from 'node:path';
import { startService } from '@lingua/bootstrap';
import { freePort, isolatedServiceEnv, startFerretDb, waitFor } from '@lingua/testing';
import { loadServiceConfig } from '../../services/ai/src/config';
import { defineAiService } from '../../services/ai/src/start';

// Lifecycle of a service process. A service whose database is down at start listens at once: liveness answers, readiness says what it
// waits for, other routes answer 503 with Retry-After; it keeps trying with back-off and becomes ready
// when the database comes; a SIGTERM while it waits ends it cleanly. (Before: exit 1 after 5 s, a
// crash loop under Kubernetes.)

const ROOT = path.resolve(__dirname, '../..');
const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
};

it('When the database is down at start, Then the service is live and not ready, and becomes ready when it comes', async () => {
  const db = await startFerretDb();
  await db.stop(); // its port is known and nothing answers there
  const port = await freePort();
  const starting = startService({
    ...defineAiService(
      loadServiceConfig(isolatedServiceEnv({ MONGO_URL: db.url, AI_HTTP_PORT: String(port) })),
    ),
    retry: { firstDelayMs: 100, maxDelayMs: 500 },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => expect((await json(`${base}/health/live`)).status).toBe(200), {
      timeoutMs: 20_000,
    });
    expect(await json(`${base}/health/ready`)).toMatchObject({
      status: 503,
      body: { status: 'starting', ready: false, waitingFor: 'database' },
    });
    expect(await json(`${base}/api/ai/quota`)).toMatchObject({
      status: 503,
      retryAfter: '5',
      body: { success: false },
    });

    await db.start();
    const service = await starting;
    try {
      await waitFor(async () => expect((await json(`${base}/health/ready`)).status).toBe(200), {
        timeoutMs: 30_000,
      });
      expect(service.httpPort).toBe(port);
      // the service's own routes are in place now (401: no caller, rather than 503: starting)
      expect((await json(`${base}/api/ai/quota`)).status).toBe(401);
    } finally {
      await service.stop();
      await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
    }
  } finally {
    await starting.catch(() => undefined);
    await db.stop();
  }
}, 90_000);

it('When SIGTERM comes while the service still waits for its database, Then it exits 0', async () => {
  const port = await freePort();
  const nothing = await freePort();
  const proc = spawn(process.execPath, [path.join(ROOT, 'services/ai/dist/main.js')], {
    env: {
      ...process.env,
      ...isolatedServiceEnv({ MONGO_URL: `mongodb://127.0.0.1:${nothing}`, AI_HTTP_PORT: String(port) }),
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  try {
    await waitFor(async () => expect((await json(`http://127.0.0.1:${port}/health/live`)).status).toBe(200), {
      timeoutMs: 20_000,
    });
    expect((await json(`http://127.0.0.1:${port}/health/ready`)).status).toBe(503);
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    proc.kill('SIGKILL');
  }
}, 60_000);

it('When SIGTERM arrives just as the service has read its definition, Then it is not lost: the service exits 0', async () => {
  // The signal is sent from inside the definition, so it is pending when runMain goes on to start
  // the service. A process that swapped its signal listener there lost it (libuv hands a signal to
  // the handle registered when it arrived): it went on, became ready and served until SIGKILL.
  const dist = (p: string) => JSON.stringify(path.join(ROOT, p));
  const main =
    `const { runMain } = require(${dist('libs/bootstrap/dist')});` +
    `const { loadServiceConfig } = require(${dist('services/identity/dist/config')});` +
    `const { defineIdentityService } = require(${dist('services/identity/dist/start')});` +
    `runMain(() => { const def = defineIdentityService(loadServiceConfig()); process.kill(process.pid, 'SIGTERM'); return def; });`;
  const proc = spawn(process.execPath, ['-e', main], {
    env: { ...process.env, ...isolatedServiceEnv({ LOG_LEVEL: 'info' }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  proc.stdout.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = new Promise<'still running'>((resolve) =>
    setTimeout(() => resolve('still running'), 20_000).unref(),
  );
  try {
    expect(await Promise.race([exited, deadline])).toBe(0);
    expect(log).toContain('"signal":"SIGTERM"');
  } finally {
    proc.kill('SIGKILL');
  }
}, 60_000);

it('When a service is told to stop, Then it is not ready at once, still serves with Connection: close for its drain delay, then refuses', async () => {
  const port = await freePort();
  const service = await startService(
    defineAiService(
      loadServiceConfig(isolatedServiceEnv({ AI_HTTP_PORT: String(port), DRAIN_DELAY_MS: '1500' })),
    ),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    // started, and ready once its checks answer (on a loaded machine a check can outlast its timeout)
    await waitFor(async () => expect((await json(`${base}/health/ready`)).status).toBe(200), {
      timeoutMs: 20_000,
    });
    const stopped = service.stop();
    expect(await json(`${base}/health/ready`)).toMatchObject({
      status: 503,
      body: { ready: false, checks: { shutdown: { status: 'down' } } },
    });
    const live = await fetch(`${base}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');
    await stopped;
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();
  } finally {
    await service.stop().catch(() => undefined);
    await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
  }
}, 60_000);
