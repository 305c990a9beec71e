import type { RedisClient } from '@lingua/redis';

export type ExportQuota = ReturnType<typeof exportQuota>;

export const EXPORT_QUOTA_KEY_PREFIX = 'flashcards:exports:';

/**
 * Free users' daily export counters in Redis (`flashcards:exports:<userId>:<YYYY-MM-DD>`), expiring
 * a day after their UTC day ends. A slot is reserved before the export and released if it fails,
 * so only delivered exports count; INCR makes concurrent reservations exact.
 */
export function exportQuota(redis: RedisClient) {
  const key = (userId: string, day: string) => `${EXPORT_QUOTA_KEY_PREFIX}${userId}:${day}`;
  return {
    /** Takes one slot; `allowed` false (and nothing taken) when the day's limit is used up. */
    async reserve(
      userId: string,
      day: string,
      limit: number,
      ttlSeconds: number,
    ): Promise<{ allowed: boolean; used: number }> {
      const k = key(userId, day);
      const used = await redis.incr(k);
      // a relative TTL: the service clock (injected) need not agree with the Redis server's
      if (used === 1) await redis.expire(k, Math.max(1, Math.ceil(ttlSeconds)));
      if (used > limit) {
        await redis.decr(k);
        return { allowed: false, used: limit };
      }
      return { allowed: true, used };
    },
    async release(userId: string, day: string): Promise<void> {
      await redis.decr(key(userId, day));
    },
    async used(userId: string, day: string): Promise<number> {
      return Number((await redis.get(key(userId, day))) ?? 0);
    },
    async eraseUser(userId: string): Promise<void> {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({
        MATCH: `${EXPORT_QUOTA_KEY_PREFIX}${userId}:*`,
        COUNT: 100,
      })) {
        keys.push(...(Array.isArray(batch) ? batch : [batch]));
      }
      if (keys.length) await redis.del(keys);
    },
  };
}
