import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, uniqueName, waitFor } from '@lingua/testing';
import type { RateLimits } from '../src/domain/rate-plans';
import { createRateLimiters } from '../src/middleware/rate-limit';

// Admission on credit (ADR 0006), on the real Redis: a caller at a human pace, whose lease expires
// between its requests, is admitted without waiting for Redis while plenty of its budget is left.
const limits: RateLimits = {
  sharedFree: 40,
  sharedSubscriber: 500,
  apiKey: 1000,
  catalogueFree: 10_000,
  cataloguePremium: 10_000,
  loginPerMinute: 100,
  signupPerHour: 100,
  recoveryPerHour: 20,
  storePerMinute: 600,
};
// leases live 30 ms here, so "the lease has expired" is reached quickly
const policy = { max: 64, lifetimeMs: 30, remainingShareDivisor: 16 };
let redis: RedisHandle;

beforeAll(async () => {
  redis = await connectRedis(redisUrl());
});
afterAll(() => redis.close());

type Limiters = ReturnType<typeof createRateLimiters>;
/**
 * When a human's next request comes: the caller's last lease has outlived its life, and the
 * replica holds nothing of its budget any more.
 */
async function afterLeaseExpired(limiters: Limiters) {
  const since = Date.now();
  await waitFor(
    () => {
      expect(Date.now() - since).toBeGreaterThan(policy.lifetimeMs);
      expect(limiters.outstanding()).toBe(0);
    },
    { intervalMs: 10 },
  );
}
const counted = async (prefix: string, bucket: string, key: string) =>
  Number(await redis.client.get(`${prefix}:${bucket}:${key}`));

describe('admission on credit', () => {
  it('When a caller with plenty of budget left comes back after its lease expired, Then it is admitted at once and Redis still counts the point', async () => {
    const prefix = uniqueName('gw-rl-credit');
    let credited = 0;
    const limiters = createRateLimiters(redis.client, limits, prefix, policy, undefined, () => credited++);
    // a caller this replica knows nothing of waits for Redis
    expect(limiters.consumeLocally('shared-free', 'user-1')).toBeUndefined();
    expect(await limiters.consume('shared-free', 'user-1')).toMatchObject({ exceeded: false, remaining: 39 });
    for (let i = 2; i <= 5; i++) {
      await afterLeaseExpired(limiters);
      // answered synchronously: nothing waited for Redis
      expect(limiters.consumeLocally('shared-free', 'user-1')).toMatchObject({
        exceeded: false,
        limit: 40,
        remaining: 40 - i,
      });
    }
    expect(credited).toBe(4);
    await afterLeaseExpired(limiters);
    expect(await counted(prefix, 'shared-free', 'user-1')).toBe(5);
    limiters.release();
  });

  it('When a burst left points in its lease and the caller comes back on credit, Then the remaining budget it is told counts those points as given back', async () => {
    const prefix = uniqueName('gw-rl-credit-burst');
    const limiters = createRateLimiters(redis.client, limits, prefix, policy);
    // quick requests grow the lease (1, 2, 4 points ...), so the last one leaves points unused
    const burst = 8;
    for (let i = 1; i <= burst; i++)
      expect(await limiters.consume('shared-free', 'user-4')).toMatchObject({
        exceeded: false,
        remaining: 40 - i,
      });
    await afterLeaseExpired(limiters);
    expect(limiters.consumeLocally('shared-free', 'user-4')).toMatchObject({
      exceeded: false,
      remaining: 40 - burst - 1,
    });
    await afterLeaseExpired(limiters);
    expect(await counted(prefix, 'shared-free', 'user-4')).toBe(burst + 1);
    limiters.release();
  });

  it('When fewer than 16 points are left, or the budget is one against abuse, Then every request waits for Redis', async () => {
    const prefix = uniqueName('gw-rl-credit-near');
    const limiters = createRateLimiters(redis.client, limits, prefix, policy);
    for (let i = 0; i < 25; i++) await limiters.consume('shared-free', 'user-2');
    await afterLeaseExpired(limiters);
    expect(await counted(prefix, 'shared-free', 'user-2')).toBe(25);
    // 15 left: exact again
    expect(limiters.consumeLocally('shared-free', 'user-2')).toBeUndefined();

    await limiters.consume('login', '203.0.113.9');
    await afterLeaseExpired(limiters);
    expect(limiters.consumeLocally('login', '203.0.113.9')).toBeUndefined();
    limiters.release();
  });

  it('When another replica spends the budget a replica last saw, Then credit lets at most one more request through there, and then it refuses', async () => {
    const prefix = uniqueName('gw-rl-credit-two');
    const a = createRateLimiters(redis.client, limits, prefix, policy);
    const b = createRateLimiters(redis.client, limits, prefix, policy);
    expect(await a.consume('shared-free', 'user-3')).toMatchObject({ exceeded: false, remaining: 39 });
    let admittedByB = 0;
    for (let i = 0; i < 60; i++) if (!(await b.consume('shared-free', 'user-3')).exceeded) admittedByB++;
    expect(admittedByB).toBe(39);
    await afterLeaseExpired(a);
    await afterLeaseExpired(b);
    // a last saw 39 left: one request on credit
    expect(a.consumeLocally('shared-free', 'user-3')).toMatchObject({ exceeded: false });
    // its lease, taken behind it, found the budget spent: the next one waits and is refused
    await afterLeaseExpired(a);
    expect(a.consumeLocally('shared-free', 'user-3')).toBeUndefined();
    expect(await a.consume('shared-free', 'user-3')).toMatchObject({ exceeded: true, remaining: 0 });
    a.release();
    b.release();
  });
});
