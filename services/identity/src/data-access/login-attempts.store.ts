import type { FailureState, LoginAttemptsStore } from '../domain/ports';
import { createHash } from 'node:crypto';
import type { RedisClient } from '@lingua/redis';

/** Keys of this service live under `identity:` (the gateway keeps its own counters under `gateway:`). */
const FAILURES_PREFIX = 'identity:login-failures:';
const IP_PREFIX = 'identity:login-ip:';
/** Redis expiry is only housekeeping; the rules compare stored times with the injected clock. */
const HOUSEKEEPING_TTL_S = 24 * 3600;

const emailKey = (email: string) =>
  FAILURES_PREFIX + createHash('sha256').update(email.toLowerCase()).digest('base64url');

/**
 * Failed-login counters per e-mail (hashed: no addresses in Redis) and login counters per IP and
 * minute. Kept for unknown e-mails too, so lockout behaviour does not reveal which addresses exist.
 */
export function loginAttemptsStore(redis: RedisClient): LoginAttemptsStore {
  return {
    async failures(email: string): Promise<FailureState> {
      const h = await redis.hGetAll(emailKey(email));
      return {
        count: Number(h.count ?? 0),
        lockedUntil: h.lockedUntil ? Number(h.lockedUntil) : null,
      };
    },
    async recordFailure(email: string, lockAfter: number, lockUntilIfReached: number): Promise<FailureState> {
      const key = emailKey(email);
      const count = await redis.hIncrBy(key, 'count', 1);
      await redis.expire(key, HOUSEKEEPING_TTL_S);
      if (count >= lockAfter) await redis.hSetNX(key, 'lockedUntil', String(lockUntilIfReached));
      const lockedUntil = await redis.hGet(key, 'lockedUntil');
      return { count, lockedUntil: lockedUntil ? Number(lockedUntil) : null };
    },
    async reset(email: string): Promise<void> {
      await redis.del(emailKey(email));
    },
    /** Counts one login attempt from `ip` in the window starting at `windowStart` (epoch ms). */
    async countIpAttempt(ip: string, windowStart: number, windowMs: number): Promise<number> {
      const key = `${IP_PREFIX}${ip}:${windowStart}`;
      const n = await redis.incr(key);
      if (n === 1) await redis.pExpire(key, windowMs * 2);
      return n;
    },
  };
}
export type { FailureState, LoginAttemptsStore };
