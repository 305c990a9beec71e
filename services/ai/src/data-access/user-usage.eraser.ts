import { deleteMatching, type RedisClient } from '@lingua/redis';
import type { UsageEraser } from '../domain/erase-user-data.use-case';
import { KEY_PREFIX } from './quota.store';

/**
 * A user's quota counters, look-up windows and cached premium status (keys `ai:quota:<feature>:<user>:<day>`,
 * `ai:window:<feature>:<user>` and `ai:entitlement:<user>`), found by SCAN on every primary (with
 * Redis Cluster they are spread over the nodes): deletions are rare, and the keys expire anyway
 * within two days; this makes them go at once.
 */
export function userUsageEraser(redis: RedisClient): UsageEraser {
  return {
    async deleteAllOfUser(userId) {
      let deleted = 0;
      for (const match of [
        `${KEY_PREFIX}quota:*:${userId}:*`,
        `${KEY_PREFIX}window:*:${userId}`,
        `${KEY_PREFIX}entitlement:${userId}`,
      ]) {
        deleted += await deleteMatching(redis, match);
      }
      return deleted;
    },
  };
}
