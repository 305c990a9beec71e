import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, TestClock, uniqueName } from '@lingua/testing';
import { quotaStore } from '../src/data-access/quota.store';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn, tokenFor } from './support';

let redis: RedisHandle;
beforeAll(async () => {
  redis = await connectRedis(redisUrl());
});
afterAll(async () => {
  await redis?.close();
});

describe('quota store (Redis)', () => {
  it('When 20 requests race for a daily limit of 5, Then exactly 5 get through', async () => {
    const store = quotaStore(redis.client);
    const user = uniqueName('u');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.reserveDaily('generate', user, '2026-03-10', 5)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(await store.usedDaily('generate', user, '2026-03-10')).toBe(5);
    expect(await store.usedDaily('generate', user, '2026-03-11')).toBe(0); // another day, another key
  });

  it('When the limit is unlimited (-1), Then every use is allowed and still counted', async () => {
    const store = quotaStore(redis.client);
    const user = uniqueName('u');
    for (let i = 0; i < 60; i++)
      expect((await store.reserveDaily('generate', user, 'd', -1)).allowed).toBe(true);
    expect(await store.usedDaily('generate', user, 'd')).toBe(60);
  });

  it('When a use is given back, Then the count drops but never below zero', async () => {
    const store = quotaStore(redis.client);
    const user = uniqueName('u');
    await store.reserveDaily('generate', user, 'd', 5);
    await store.releaseDaily('generate', user, 'd');
    await store.releaseDaily('generate', user, 'd');
    expect(await store.usedDaily('generate', user, 'd')).toBe(0);
  });

  it('When 12 look-ups race for a window of 5, Then exactly 5 are recorded', async () => {
    const store = quotaStore(redis.client);
    const user = uniqueName('u');
    const opts = (i: number) => ({ nowMs: 1_000_000, windowMs: 10_800_000, limit: 5, useId: `use-${i}` });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.takeWindow('lookup', user, opts(i))),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(await store.peekWindow('lookup', user, { nowMs: 1_000_000, windowMs: 10_800_000 })).toEqual({
      used: 5,
      oldestMs: 1_000_000,
    });
  });
});

describe('look-ups across replicas', () => {
  let replicas: AiUnderTest[] = [];
  let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;

  beforeAll(async () => {
    entitlements = await startEntitlementsStandIn();
    const clock = new TestClock('2026-03-10T10:00:00Z');
    const env = { SUBSCRIPTIONS_ADDR: entitlements.address };
    replicas = [await startAi(env, { clock }), await startAi(env, { clock })];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await entitlements?.stop();
  });

  it('When a free user fires 10 look-ups at once across two replicas, Then exactly 5 succeed and 5 are 429 RATE002', async () => {
    const user = tokenFor(replicas[0]!);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(replicas[i % 2]!.service.httpUrl, 'POST', '/api/ai/lookup', {
          headers: user.headers,
          body: { word: 'river' },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    expect(results.find((r) => r.status === 429)!.body.error.code).toBe('RATE002');
  });
});
