import type { AttemptReservation, LoginAttemptsStore } from '../domain/ports';
import { createHash } from 'node:crypto';
import { countWithin, type RedisClient } from '@lingua/redis';

/** Keys of this service live under `identity:` (the gateway keeps its own counters under `gateway:`). */
const FAILURES_PREFIX = 'identity:login-failures:';
const IP_PREFIX = 'identity:login-ip:';
/** Redis expiry is only housekeeping; the rules compare stored times with the injected clock. */
const HOUSEKEEPING_TTL_S = 24 * 3600;

const emailKey = (email: string) =>
  FAILURES_PREFIX + createHash('sha256').update(email.toLowerCase()).digest('base64url');

/**
 * Count, then check, in one step: a lock that ran out is lifted; while locked nothing is counted;
 * otherwise the attempt is counted before its password is compared, and the one that reaches the
 * limit sets the lock. So however many requests arrive at once, at most `lockAfter` get a check.
 * KEYS[1] the address's hash; ARGV now (ms), lockAfter, lockMs, housekeeping TTL (s).
 * Returns {1, count, lockedUntil or 0} (granted) or {0, lockedUntil} (refused).
 */
const RESERVE = `
local now = tonumber(ARGV[1])
local lockAfter = tonumber(ARGV[2])
local lockedUntil = tonumber(redis.call('HGET', KEYS[1], 'lockedUntil') or '0')
if lockedUntil > 0 then
  if lockedUntil > now then return {0, lockedUntil} end
  redis.call('DEL', KEYS[1])
  lockedUntil = 0
end
local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
if count >= lockAfter then
  lockedUntil = now + tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'lockedUntil', lockedUntil)
  -- only the attempt that reached the limit may still compare (the limit may have been lowered)
  if count > lockAfter then return {0, lockedUntil} end
end
return {1, count, lockedUntil}
`;

/**
 * Password-attempt counters per e-mail (hashed: no addresses in Redis) and login counters per IP and
 * minute. Kept for unknown e-mails too, so lockout behaviour does not reveal which addresses exist.
 */
export function loginAttemptsStore(redis: RedisClient): LoginAttemptsStore {
  return {
    async reserve(email, now, lockAfter, lockMs): Promise<AttemptReservation> {
      const reply = (await redis.eval(RESERVE, {
        keys: [emailKey(email)],
        arguments: [String(now), String(lockAfter), String(lockMs), String(HOUSEKEEPING_TTL_S)],
      })) as number[];
      if (reply[0] !== 1) return { granted: false, lockedUntil: Number(reply[1]) };
      const lockedUntil = Number(reply[2]);
      return { granted: true, count: Number(reply[1]), lockedUntil: lockedUntil > 0 ? lockedUntil : null };
    },
    async reset(email: string): Promise<void> {
      await redis.del(emailKey(email));
    },
    /** Counts one login attempt from `ip` in the window starting at `windowStart` (epoch ms). */
    async countIpAttempt(ip: string, windowStart: number, windowMs: number): Promise<number> {
      const key = `${IP_PREFIX}${ip}:${windowStart}`;
      return (await countWithin(redis, key, { ttlMs: windowMs * 2 })).count;
    },
  };
}
export type { LoginAttemptsStore };
