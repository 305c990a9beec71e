import type { RedisClient } from '@lingua/redis';
import type { LeaseStore } from '../domain/webhook';

export const LEASE_KEY_PREFIX = 'notifications:webhook-lease:';

/**
 * Leases in Redis: SET NX PX is atomic across every replica (the local document database cannot
 * be trusted with a concurrent compare-and-set), and an expired lease frees itself if its worker died.
 */
export function redisLeaseStore(redis: RedisClient): LeaseStore {
  return {
    async acquire(key, ms) {
      const r = await redis.set(LEASE_KEY_PREFIX + key, '1', {
        condition: 'NX',
        expiration: { type: 'PX', value: ms },
      });
      return r === 'OK';
    },
  };
}
