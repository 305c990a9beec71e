import { waitFor } from '@lingua/testing';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn } from './support';

// Production boots with AI_PRELOAD_LANGUAGE_DATA on: the service reads its dictionaries in the
// background after boot, and says it is not ready until it has (a request routed to it before would
// read whole dictionaries itself, past its deadline). Off in the other test stacks.
let ai: AiUnderTest;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;

beforeAll(async () => {
  entitlements = await startEntitlementsStandIn();
  ai = await startAi({ SUBSCRIPTIONS_ADDR: entitlements.address, AI_PRELOAD_LANGUAGE_DATA: 'true' });
});

afterAll(async () => {
  await ai?.stop();
  await entitlements?.stop();
});

describe('readiness while the language data is read', () => {
  it('When the service has just booted, Then it is not ready until the data is read, then it is', async () => {
    const early = await call(ai.service.httpUrl, 'GET', '/health/ready');
    expect(early.status).toBe(503);
    expect(early.body.checks.language_data_loaded).toMatchObject({
      status: 'down',
      error: 'still reading the language data',
    });

    await waitFor(
      async () => {
        const res = await call(ai.service.httpUrl, 'GET', '/health/ready');
        if (res.status !== 200) throw new Error(`not ready yet: ${res.status}`);
        expect(res.body.checks.language_data_loaded).toMatchObject({ status: 'up' });
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  }, 150_000);
});
