import { countWithin, type RedisClient, uncount } from '@lingua/redis';
import type { QuotaStore, WindowState } from '../domain/ports';

/** Redis keys of this service all start with `ai:` (the Redis instance is shared). */
export const KEY_PREFIX = 'ai:';

// Sliding window: one sorted-set member per look-up, scored by its time (from the service clock).
const TAKE_WINDOW = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if limit < 0 or used < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  used = used + 1
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, used, oldest[2]}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, used, oldest[2]}`;

const PEEK_WINDOW = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), oldest[2] or false}`;

const dailyKey = (feature: string, userId: string, day: string) =>
  `${KEY_PREFIX}quota:${feature}:${userId}:${day}`;
const windowKey = (feature: string, userId: string) => `${KEY_PREFIX}window:${feature}:${userId}`;
const toNumber = (v: unknown) => (v === null || v === undefined || v === false ? undefined : Number(v));

/** Per-user usage counters in Redis: a calendar-day counter and a sliding-window log. */
export function quotaStore(redis: RedisClient): QuotaStore {
  return {
    /** Counts one use for the day unless `limit` (negative = none) is reached. */
    async reserveDaily(feature: string, userId: string, day: string, limit: number) {
      // check, count and lifetime in one step: replicas never both take the last unit, and the key
      // is kept two days, long enough for every time zone's view of "today", then gone
      const taken = await countWithin(redis, dailyKey(feature, userId, day), {
        ttlMs: 2 * 86_400_000,
        limit,
      });
      return { allowed: taken.counted, used: taken.count };
    },
    /** Gives back a use that was not delivered (the provider failed). */
    async releaseDaily(feature: string, userId: string, day: string) {
      await uncount(redis, dailyKey(feature, userId, day));
    },
    async usedDaily(feature: string, userId: string, day: string): Promise<number> {
      return Number((await redis.get(dailyKey(feature, userId, day))) ?? 0);
    },
    /** Records one use at `nowMs` unless `limit` uses (negative = none) already lie in the window. */
    async takeWindow(
      feature: string,
      userId: string,
      opts: { nowMs: number; windowMs: number; limit: number; useId: string },
    ): Promise<WindowState> {
      const [allowed, used, oldest] = (await redis.eval(TAKE_WINDOW, {
        keys: [windowKey(feature, userId)],
        arguments: [String(opts.nowMs), String(opts.windowMs), String(opts.limit), opts.useId],
      })) as [number, number, string | null];
      return { allowed: allowed === 1, used, oldestMs: toNumber(oldest) };
    },
    async releaseWindow(feature: string, userId: string, useId: string) {
      await redis.zRem(windowKey(feature, userId), useId);
    },
    async peekWindow(feature: string, userId: string, opts: { nowMs: number; windowMs: number }) {
      const [used, oldest] = (await redis.eval(PEEK_WINDOW, {
        keys: [windowKey(feature, userId)],
        arguments: [String(opts.nowMs), String(opts.windowMs)],
      })) as [number, string | null];
      return { used, oldestMs: toNumber(oldest) };
    },
  };
}
