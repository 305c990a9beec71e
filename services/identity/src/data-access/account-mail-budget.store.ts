import { createHash } from 'node:crypto';
import type { RedisClient } from '@lingua/redis';
import type { AccountMailBudget, MailAllowance } from '../domain/ports';

const PREFIX = 'identity:account-mails:';

/** The address, hashed: no addresses in Redis; lower-cased, as accounts store them. */
const addressKey = (email: string) =>
  PREFIX + createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

/**
 * One step: a window that has run out (or none) starts at `now` with this e-mail; otherwise the
 * e-mail is counted while the budget lasts. Times come from the caller's clock; the Redis expiry is
 * housekeeping only. KEYS[1] the address; ARGV now (ms), limit, window (ms).
 * Returns {1} (allowed) or {0, window start} (refused).
 */
const TAKE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[3])
local start = tonumber(redis.call('HGET', KEYS[1], 'start') or '-1')
if start < 0 or now - start >= window or now < start then
  redis.call('HSET', KEYS[1], 'start', now, 'count', 1)
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1}
end
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
if count >= tonumber(ARGV[2]) then return {0, start} end
redis.call('HINCRBY', KEYS[1], 'count', 1)
return {1}
`;

/** Account e-mails per address in Redis, counted for every address asked about, known or not. */
export function accountMailBudget(redis: RedisClient): AccountMailBudget {
  return {
    async take(email, now, limit, windowMs): Promise<MailAllowance> {
      const reply = (await redis.eval(TAKE, {
        keys: [addressKey(email)],
        arguments: [String(now), String(limit), String(windowMs)],
      })) as number[];
      if (reply[0] === 1) return { allowed: true };
      return { allowed: false, retryAfterMs: Math.max(1, Number(reply[1]) + windowMs - now) };
    },
  };
}
