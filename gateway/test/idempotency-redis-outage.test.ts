import { startPrivateRedis, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, readiness, redisIs, Stubs, stubServices } from './harness';

// Idempotency-Key records live in Redis (docs/adr/0024). Without Redis the gateway cannot promise a
// keyed request runs once, so it refuses it (503, Retry-After: the client retries with the same key)
// instead of running it unguarded; requests without a key are not affected.
const stubs = new Stubs();
let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
let gateway: RunningGateway;

beforeAll(async () => {
  redis = await startPrivateRedis();
  gateway = await gatewayWith({
    ...(await stubServices(stubs)),
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  });
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  stubs.close();
  await redis.dispose();
});

const post = (key?: string) =>
  fetch(`${gateway.url}/api/flashcard-sets`, {
    method: 'POST',
    headers: {
      authorization: bearer(),
      'content-type': 'application/json',
      ...(key !== undefined && { 'idempotency-key': key }),
    },
    body: JSON.stringify({ name: 'Kitchen' }),
  });

describe('Idempotency-Key while Redis is away', () => {
  it('When Redis is down, Then a keyed POST is refused with 503 and Retry-After before reaching the service, an unkeyed one still goes through, and keys work again once Redis is back', async () => {
    const first = await post('k-1');
    expect(first.status).toBe(200);
    const reached = stubs.seen.length;
    const replay = await post('k-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(stubs.seen.length).toBe(reached);

    await redis.stop();
    await waitFor(async () => expect(await readiness(gateway.url)).toEqual(redisIs('down')));
    const refused = await post('k-2');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    expect(stubs.seen.length).toBe(reached);
    expect((await post()).status).toBe(200);
    expect(stubs.seen.length).toBe(reached + 1);

    await redis.start();
    await waitFor(async () => expect(await readiness(gateway.url)).toEqual(redisIs('up')), {
      timeoutMs: 20_000,
    });
    expect((await post('k-2')).status).toBe(200);
    expect(stubs.seen.length).toBe(reached + 2);
  }, 60_000);
});
