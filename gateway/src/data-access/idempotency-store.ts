import type { RedisClient } from '@lingua/redis';
import type { IdempotencyRecord, IdempotencyStore, StoredAnswer } from '../domain/idempotency';

/**
 * Idempotency records in Redis, shared by every gateway replica: one hash per (caller, operation,
 * key). Each step is one script, so two replicas never both take a key, and a request whose claim ran
 * out (its lease, a replica that died) can neither overwrite nor drop the claim of the one after it.
 */

/** KEYS[1]; ARGV fingerprint, token, lease (ms). Returns the record holding the key, or nil when taken. */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], 'state', 'fp', 'status', 'headers', 'body')
end
redis.call('HSET', KEYS[1], 'state', 'pending', 'fp', ARGV[1], 'token', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return false`;

/** KEYS[1]; ARGV token, fingerprint, status, headers (JSON), body (base64), lifetime (s). */
const COMPLETE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'done', 'fp', ARGV[2], 'status', ARGV[3], 'headers', ARGV[4], 'body', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
return 1`;

/** KEYS[1]; ARGV token. */
const RELEASE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

export function redisIdempotencyStore(redis: RedisClient, prefix: string): IdempotencyStore {
  const key = (id: string) => `${prefix}:${id}`;
  return {
    async claim(id, fingerprint, token, leaseMs) {
      const found = (await redis.eval(CLAIM, {
        keys: [key(id)],
        arguments: [fingerprint, token, String(Math.max(1, Math.ceil(leaseMs)))],
      })) as (string | null)[] | null;
      if (!found) return undefined;
      const [state, fp, status, headers, body] = found;
      if (state !== 'done') return { state: 'pending', fingerprint: fp ?? '' } satisfies IdempotencyRecord;
      const answer: StoredAnswer = {
        status: Number(status),
        headers: JSON.parse(headers ?? '{}') as Record<string, string>,
        body: Buffer.from(body ?? '', 'base64'),
      };
      return { state: 'done', fingerprint: fp ?? '', answer };
    },
    async complete(id, token, fingerprint, answer, ttlSeconds) {
      await redis.eval(COMPLETE, {
        keys: [key(id)],
        arguments: [
          token,
          fingerprint,
          String(answer.status),
          JSON.stringify(answer.headers),
          answer.body.toString('base64'),
          String(ttlSeconds),
        ],
      });
    },
    async release(id, token) {
      await redis.eval(RELEASE, { keys: [key(id)], arguments: [token] });
    },
  };
}
