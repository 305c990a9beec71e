import { countWithin, deleteMatching, type RedisClient, uncount } from '@lingua/redis';

export type ExportQuota = ReturnType<typeof exportQuota>;

export const EXPORT_QUOTA_KEY_PREFIX = 'flashcards:exports:';

/**
 * Free users' daily export counters in Redis (`flashcards:exports:<userId>:<YYYY-MM-DD>`), expiring
 * a day after their UTC day ends. A slot is reserved before the export and released if it fails,
 * so only delivered exports count; one atomic step (@lingua/redis countWithin) makes concurrent
 * reservations exact and never leaves a counter without its expiry.
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
      // a relative TTL: the service clock (injected) need not agree with the Redis server's
      const taken = await countWithin(redis, key(userId, day), { ttlMs: ttlSeconds * 1000, limit });
      return taken.counted ? { allowed: true, used: taken.count } : { allowed: false, used: limit };
    },
    async release(userId: string, day: string): Promise<void> {
      await uncount(redis, key(userId, day));
    },
    async used(userId: string, day: string): Promise<number> {
      return Number((await redis.get(key(userId, day))) ?? 0);
    },
    /** On every primary: Redis Cluster spreads the days over nodes. */
    async eraseUser(userId: string): Promise<void> {
      await deleteMatching(redis, `${EXPORT_QUOTA_KEY_PREFIX}${userId}:*`, 100);
    },
  };
}
