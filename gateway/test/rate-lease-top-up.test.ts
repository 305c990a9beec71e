import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, uniqueName, waitFor } from '@lingua/testing';
import type { RateLimits } from '../src/domain/rate-plans';
import { createRateLimiters } from '../src/middleware/rate-limit';

// The limiters on the real Redis, without HTTP: what a busy caller's requests wait for.
const limits: RateLimits = {
  sharedFree: 100,
  sharedSubscriber: 500,
  apiKey: 1000,
  catalogueFree: 10_000,
  cataloguePremium: 10_000,
  loginPerMinute: 5,
  signupPerHour: 100,
  recoveryPerHour: 20,
  storePerMinute: 600,
};
const policy = { max: 64, lifetimeMs: 1_000, remainingShareDivisor: 16 };
let redis: RedisHandle;

beforeAll(async () => {
  redis = await connectRedis(redisUrl());
});
afterAll(() => redis.close());

describe('a busy caller served from memory while its lease is topped up', () => {
  it('When a caller sends requests one after another, Then after the first few none waits for Redis, and every point is counted once', async () => {
    const prefix = uniqueName('gw-rl-topup');
    const limiters = createRateLimiters(redis.client, limits, prefix, policy);
    let waitedForRedis = 0; // once the leases are big (the first 100 requests ramp them up)
    let served = 0;
    for (let i = 0; i < 400; i++) {
      let decision = limiters.consumeLocally('catalogue-free', 'user-1');
      if (!decision) {
        if (i >= 100) waitedForRedis++;
        decision = await limiters.consume('catalogue-free', 'user-1');
      }
      if (!decision.exceeded) served++;
      // the next request arrives one Redis round trip later (a PING on the limiters' connection, answered
      // in order after a top-up sent before it), not after a fixed 1 ms that a loaded machine may not honour
      await redis.client.ping();
    }
    expect(served).toBe(400);
    // a lease of 64 is topped up with 16 points (16 round trips here) to spare, so a request waits for
    // Redis only when a top-up is slower than 16 round trips; without top-ups, a lease running out
    // every 64 of the last 300 requests makes it at least 4
    expect(waitedForRedis).toBeLessThan(4);

    // the points held are given back on release: Redis has counted exactly the 400 served
    limiters.release();
    await waitFor(async () =>
      expect(Number(await redis.client.get(`${prefix}:catalogue-free:user-1`))).toBe(400),
    );
  });
});
