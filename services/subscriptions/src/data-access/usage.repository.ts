import { countWithin, type RedisClient } from '@lingua/redis';
import type { UsageCounters } from '../domain/ports';

const PREFIX = 'subscriptions:dialogues';
const DAY_MS = 86_400_000;
const day = (now: Date) => now.toISOString().slice(0, 10);
const month = (now: Date) => now.toISOString().slice(0, 7);

/**
 * Free-tier counters in Redis (shared by every replica; expiring keys, which the local database
 * cannot do). Keys are named after the injected clock's UTC day and month.
 */
export function redisUsageCounters(redis: RedisClient): UsageCounters {
  const dayKey = (owner: string, now: Date) => `${PREFIX}:day:${owner}:${day(now)}`;
  const monthKey = (owner: string, now: Date) => `${PREFIX}:month:${owner}:${month(now)}`;
  const lastKey = (owner: string) => `${PREFIX}:last:${owner}`;
  return {
    async takeDialogue(owner, limit, now) {
      // count, limit and lifetime in one step each: a key must never be left without its expiry
      const today = await countWithin(redis, dayKey(owner, now), {
        ttlMs: 2 * DAY_MS,
        ...(limit !== undefined && { limit }),
      });
      if (!today.counted) return { counted: false, today: today.count };
      await countWithin(redis, monthKey(owner, now), { ttlMs: 40 * DAY_MS });
      await redis.set(lastKey(owner), now.toISOString(), { EX: 400 * 86_400 });
      return { counted: true, today: today.count };
    },
    async dialoguesToday(owner, now) {
      return Number((await redis.get(dayKey(owner, now))) ?? 0);
    },
    async dialoguesThisMonth(owner, now) {
      return Number((await redis.get(monthKey(owner, now))) ?? 0);
    },
    async lastActivity(owner) {
      const v = await redis.get(lastKey(owner));
      return v ? new Date(v) : undefined;
    },
  };
}
