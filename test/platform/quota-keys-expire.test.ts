import { connectRedis, type RedisClient, type RedisHandle } from '@lingua/redis';
import { redisUrl, uniqueName } from '@lingua/testing';
import { quotaStore } from '../../services/ai/src/data-access/quota.store';
import { exportQuota } from '../../services/flashcards/src/data-access/export-quota.repository';
import { loginAttemptsStore } from '../../services/identity/src/data-access/login-attempts.store';
import { redisUsageCounters } from '../../services/subscriptions/src/data-access/usage.repository';

// Issue 36 item 8: a quota or attempt counter must never be left without its expiry. A counter
// written with INCR and then EXPIRE lives forever when the process dies (or the connection drops)
// between the two; so does one that DECR recreates after it expired. Each store is driven here
// through a client whose connection is lost after its first command, the crash at the worst point.

let redis: RedisHandle;
beforeAll(async () => {
  redis = await connectRedis(redisUrl());
});
afterAll(() => redis.close());

/** The real client, except that every command after the first fails, as on a dropped connection. */
function lostAfterFirstCommand(client: RedisClient): RedisClient {
  let commands = 0;
  return new Proxy(client, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (++commands > 1) return Promise.reject(new Error('connection lost'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The key's lifetime in seconds (-1: none, -2: no key). */
const ttl = (key: string) => redis.client.ttl(key);
const ignore = () => undefined;

describe('quota and attempt counters keep their expiry', () => {
  it('When a free dialogue is counted and the connection drops right after, Then the day and month counters expire', async () => {
    const owner = uniqueName('quota');
    const now = new Date('2026-11-27T10:00:00Z');
    await redisUsageCounters(lostAfterFirstCommand(redis.client)).takeDialogue(owner, 3, now).catch(ignore);
    expect(await ttl(`subscriptions:dialogues:day:${owner}:2026-11-27`)).toBeGreaterThan(0);
    // the month counter is the second step: counted or not, never without an expiry
    expect(await ttl(`subscriptions:dialogues:month:${owner}:2026-11`)).not.toBe(-1);
    await redis.client.del([
      `subscriptions:dialogues:day:${owner}:2026-11-27`,
      `subscriptions:dialogues:month:${owner}:2026-11`,
    ]);
  });

  it('When a dialogue over the daily limit is refused, Then the count stays at the limit and keeps its expiry', async () => {
    const owner = uniqueName('quota');
    const now = new Date('2026-11-27T10:00:00Z');
    const counters = redisUsageCounters(redis.client);
    expect((await counters.takeDialogue(owner, 1, now)).counted).toBe(true);
    expect(await counters.takeDialogue(owner, 1, now)).toEqual({ counted: false, today: 1 });
    expect(await counters.dialoguesToday(owner, now)).toBe(1);
    expect(await ttl(`subscriptions:dialogues:day:${owner}:2026-11-27`)).toBeGreaterThan(0);
    await redis.client.del([
      `subscriptions:dialogues:day:${owner}:2026-11-27`,
      `subscriptions:dialogues:month:${owner}:2026-11`,
      `subscriptions:dialogues:last:${owner}`,
    ]);
  });

  it('When an export slot is reserved and the connection drops right after, Then the counter expires', async () => {
    const user = uniqueName('quota');
    const key = `flashcards:exports:${user}:2026-11-27`;
    await exportQuota(lostAfterFirstCommand(redis.client)).reserve(user, '2026-11-27', 5, 3600).catch(ignore);
    expect(await ttl(key)).toBeGreaterThan(0);
    await redis.client.del(key);
  });

  it('When an export slot is released after its day counter expired, Then no counter without an expiry is left', async () => {
    const user = uniqueName('quota');
    const key = `flashcards:exports:${user}:2026-11-27`;
    await exportQuota(redis.client).release(user, '2026-11-27');
    expect(await ttl(key)).toBe(-2);
    await redis.client.del(key);
  });

  it('When a sign-in from an address is counted and the connection drops right after, Then the counter expires', async () => {
    const ip = uniqueName('quota');
    const key = `identity:login-ip:${ip}:1000`;
    await loginAttemptsStore(lostAfterFirstCommand(redis.client))
      .countIpAttempt(ip, 1000, 60_000)
      .catch(ignore);
    expect(await ttl(key)).toBeGreaterThan(0);
    await redis.client.del(key);
  });

  it('When an AI use is given back after its day counter expired, Then no counter without an expiry is left', async () => {
    const user = uniqueName('quota');
    const key = `ai:quota:generate:${user}:2026-11-27`;
    await quotaStore(redis.client).releaseDaily('generate', user, '2026-11-27');
    expect(await ttl(key)).toBe(-2);
    await redis.client.del(key);
  });
});
