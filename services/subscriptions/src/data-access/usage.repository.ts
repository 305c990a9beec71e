import type { RedisClient } from '@lingua/redis';
import type { UsageCounters } from '../domain/ports';

const PREFIX = 'subscriptions:dialogues';
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
      const key = dayKey(owner, now);
      const today = await redis.incr(key);
      if (today === 1) await redis.expire(key, 2 * 86_400);
      // over the limit: give the unit back, so the count stays the number of practices done
      if (limit !== undefined && today > limit) {
        await redis.decr(key);
        return { counted: false, today: today - 1 };
      }
      const mKey = monthKey(owner, now);
      const m = await redis.incr(mKey);
      if (m === 1) await redis.expire(mKey, 40 * 86_400);
      await redis.set(lastKey(owner), now.toISOString(), { EX: 400 * 86_400 });
      return { counted: true, today };
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
