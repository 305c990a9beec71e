import type { RunningService } from '@lingua/bootstrap';
import { startService } from '@lingua/bootstrap';
import { isolatedServiceEnv, signTestToken, startFerretDb, waitFor } from '@lingua/testing';
import { loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import * as ai from '../../services/ai/src/config';
import { defineAiService } from '../../services/ai/src/start';
import * as flashcards from '../../services/flashcards/src/config';
import { defineFlashcardsService } from '../../services/flashcards/src/start';
import * as identity from '../../services/identity/src/config';
import { defineIdentityService } from '../../services/identity/src/start';
import * as notifications from '../../services/notifications/src/config';
import { defineNotificationsService } from '../../services/notifications/src/start';
import * as subscriptions from '../../services/subscriptions/src/config';
import { defineSubscriptionsService } from '../../services/subscriptions/src/start';

// All five services and the gateway, on a private FerretDB that the test stops and starts again.
let db: Awaited<ReturnType<typeof startFerretDb>>;
let services: Record<string, RunningService>;
let gateway: RunningGateway;

beforeAll(async () => {
  db = await startFerretDb();
  const env = isolatedServiceEnv({ MONGO_URL: db.url });
  services = {
    identity: await startService(defineIdentityService(identity.loadServiceConfig(env))),
    flashcards: await startService(defineFlashcardsService(flashcards.loadServiceConfig(env))),
    subscriptions: await startService(defineSubscriptionsService(subscriptions.loadServiceConfig(env))),
    ai: await startService(defineAiService(ai.loadServiceConfig(env))),
    notifications: await startService(defineNotificationsService(notifications.loadServiceConfig(env))),
  };
  gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      IDENTITY_HTTP_URL: services.identity!.httpUrl,
      FLASHCARDS_HTTP_URL: services.flashcards!.httpUrl,
      SUBSCRIPTIONS_HTTP_URL: services.subscriptions!.httpUrl,
      AI_HTTP_URL: services.ai!.httpUrl,
      NOTIFICATIONS_HTTP_URL: services.notifications!.httpUrl,
    }),
    { logger: services.identity!.deps.logger },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  for (const s of Object.values(services ?? {})) await s.stop();
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
    const down = await get(`${services.flashcards!.httpUrl}/health/ready`);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      ready: false,
      checks: { database: { status: 'down' }, nats: { status: 'up' } },
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
      async () => expect((await get(`${services.flashcards!.httpUrl}/health/ready`)).status).toBe(200),
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
    const { token } = signTestToken(services.ai!.deps.config.jwtSecret);
    await services.ai!.stop();
    // signed in, so the edge lets the call through and only the missing service is left to fail
    const res = await fetch(`${gateway.url}/api/ai/quota`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    const shared = await fetch(`${gateway.url}/api/v1/subscriptions/plans`);
    expect(shared.status).not.toBe(503); // other services keep answering
  });
});
