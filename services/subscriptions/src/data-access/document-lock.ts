import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import type { RedisClient } from '@lingua/redis';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * A per-document mutual exclusion in Redis, shared by every replica. Needed because FerretDB v1
 * (SQLite) applies an update as read-modify-write without isolation: measured here, concurrent
 * conditional findOneAndUpdate calls can all "win" and concurrent $inc/$pull lose updates. Every
 * write to a subscription document (ours and the outbox relay's) goes through this lock.
 */
export function documentLock(
  redis: RedisClient,
  options: { prefix: string; ttlMs?: number; waitMs?: number },
) {
  // generous: under load a locked read-and-write on FerretDB has been seen to take seconds
  const ttlMs = options.ttlMs ?? 30_000;
  const waitMs = options.waitMs ?? 30_000;
  return async function withLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const key = `${options.prefix}:${id}`;
    const token = randomUUID();
    const deadline = Date.now() + waitMs;
    let delay = 5;
    while ((await redis.set(key, token, { NX: true, PX: ttlMs })) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`lock ${key} not acquired within ${waitMs} ms`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 100);
    }
    try {
      return await fn();
    } finally {
      await redis.eval(RELEASE, { keys: [key], arguments: [token] }).catch(() => undefined);
    }
  };
}
export type WithLock = ReturnType<typeof documentLock>;

/**
 * The collection as the outbox relay sees it (find + updateOne), with each update taken under the
 * document's lock, so the relay's $pull never overwrites a concurrent change (and vice versa).
 */
export function lockedForRelay<T extends mongo.Document>(
  col: mongo.Collection<T>,
  withLock: WithLock,
): mongo.Collection<T> {
  return new Proxy(col, {
    get(target, prop, receiver) {
      if (prop === 'updateOne')
        return (filter: mongo.Filter<T>, update: mongo.UpdateFilter<T>, opts?: mongo.UpdateOptions) =>
          withLock(String((filter as { _id?: unknown })._id), () => target.updateOne(filter, update, opts));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
