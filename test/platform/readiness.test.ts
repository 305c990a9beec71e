import { DEV_JWT_SECRET, type RunningService } from '@lingua/bootstrap';
import { isolatedServiceEnv, signTestToken, startFerretDb, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../../gateway/src/server';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// All five services and the gateway, on a private FerretDB that the test stops and starts again.
let db: Awaited<ReturnType<typeof startFerretDb>>;
let stack: InProcessStack;
let services: Record<string, RunningService>;
let gateway: RunningGateway;

beforeAll(async () => {
  db = await startFerretDb();
  // health answers are not reused here: the test watches them change from one moment to the next
  stack = await startInProcessStack(isolatedServiceEnv({ MONGO_URL: db.url }), { HEALTH_CACHE_MS: '0' });
  ({ services, gateway } = stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await db?.dispose();
});

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('readiness', () => {
  it('When the database goes away, Then readiness and /api/health/detailed say so; When it returns, Then they recover', async () => {
    expect((await get(`${services.flashcards!.httpUrl}/health/ready`)).status).toBe(200);
    expect((await get(`${gateway.url}/api/health/detailed`)).body).toMatchObject({
      Status: 'Healthy',
      Database: 'Healthy',
      Cache: 'Healthy',
    });

    await db.stop();
    // without its database a replica leaves rotation (ADR 0034)
    const down = await get(`${services.flashcards!.httpUrl}/health/ready`);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      ready: false,
      checks: { database: { status: 'down' }, nats: { status: 'up' } },
    });
    const { token } = signTestToken(DEV_JWT_SECRET);
    const cards = await fetch(`${gateway.url}/api/flashcards`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([503, 504]).toContain(cards.status);
    // Group B's envelope (the spec's): the error as a message; a 503 says the service is
    // unavailable, a 504 that the call outlived its deadline (the driver waited for the server)
    expect(await cards.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(cards.status === 503 ? /unavailable/ : /deadline/),
    });
    const detailed = await get(`${gateway.url}/api/health/detailed`);
    expect(detailed.status).toBe(200);
    expect(detailed.body).toMatchObject({ Status: 'Unhealthy', Database: 'Unhealthy', Cache: 'Healthy' });
    expect(await get(`${gateway.url}/health`)).toMatchObject({
      status: 503,
      body: { status: 'unhealthy', checks: { database: 'unhealthy', redis: 'healthy' } },
    });
    // liveness is not readiness: the process is alive and should not be restarted
    expect((await get(`${services.flashcards!.httpUrl}/health/live`)).status).toBe(200);

    await db.start();
    await waitFor(
      async () =>
        expect((await get(`${services.flashcards!.httpUrl}/health/ready`)).body).toMatchObject({
          status: 'ok',
          checks: { database: { status: 'up' } },
        }),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    await waitFor(
      async () =>
        expect((await get(`${gateway.url}/api/health/detailed`)).body).toMatchObject({
          Status: 'Healthy',
          Database: 'Healthy',
        }),
      {
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
  }, 90_000);

  it('When a service is down, Then the gateway answers its routes with 503 in the route envelope, never a hang', async () => {
    const { token } = signTestToken(DEV_JWT_SECRET);
    await services.ai!.stop();
    // signed in, so the edge lets the call through and only the missing service is left to fail
    const res = await fetch(`${gateway.url}/api/ai/quota`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    const shared = await fetch(`${gateway.url}/api/v1/subscriptions/plans`);
    expect(shared.status).not.toBe(503); // other services keep answering
  });
});
