import type { RedisClient } from './connect';

/**
 * Counts one unit, unless `limit` units are counted already, and gives the key its lifetime, in one
 * command: an INCR followed by a separate EXPIRE leaves a key that never expires when the process
 * dies (or the connection drops) between the two. A key found without a lifetime (left so by older
 * code) gets one too. The lifetime starts with the first unit and is not renewed by later ones.
 * KEYS[1] the counter; ARGV lifetime (ms), limit (negative: none). Returns {counted 1|0, count}.
 */
const COUNT = `
local limit = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if limit >= 0 and count >= limit then return {0, count} end
count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {1, count}`;

/** Gives a unit back only while the counter exists: DECR on an expired key would create one that never expires. */
const UNCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local count = redis.call('DECR', KEYS[1])
if count < 0 then redis.call('SET', KEYS[1], '0', 'KEEPTTL') return 0 end
return count`;

export interface CountResult {
  /** false when the limit was reached (nothing counted). */
  counted: boolean;
  /** The count after this call. */
  count: number;
}

/**
 * The one way a service counts in Redis with an expiring key (quotas, attempt counters): count and
 * lifetime in one atomic step, with an optional limit checked in the same step.
 */
export async function countWithin(
  redis: RedisClient,
  key: string,
  options: { ttlMs: number; limit?: number },
): Promise<CountResult> {
  const [counted, count] = (await redis.eval(COUNT, {
    keys: [key],
    arguments: [String(Math.max(1, Math.ceil(options.ttlMs))), String(options.limit ?? -1)],
  })) as [number, number];
  return { counted: counted === 1, count: Number(count) };
}

/** Takes one unit back (a use that was not delivered); never below 0, never creating the key. */
export async function uncount(redis: RedisClient, key: string): Promise<number> {
  return Number(await redis.eval(UNCOUNT, { keys: [key], arguments: [] }));
}
