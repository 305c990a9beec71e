import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import { AppError } from '@lingua/errors';
import { budgetMs, throwIfAbandoned } from '@lingua/logger';
import type { RedisClient } from '@lingua/redis';

// deletes the key only if we still hold it (a lock that outlived its TTL may belong to someone else)
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * A per-document mutual exclusion in Redis, shared by every replica. Needed because FerretDB v1
 * (SQLite, the local database) applies an update as read-modify-write of the whole document without
 * isolation: the outbox relay's `$pull` of a published event and a concurrent business write to the
 * same document lose one of the two (measured: a staged event vanished, a cancel was undone).
 * Services that write such documents take this lock for each write and give the relay
 * `lockedForRelay(collection, lock)`. Uncontended it costs two Redis round trips (SET NX, release).
 * On MongoDB the race does not exist; the lock is then merely redundant.
 */
export function documentLock(
  redis: RedisClient,
  options: {
    prefix: string;
    ttlMs?: number;
    waitMs?: number;
    /**
     * Fail open: when Redis fails the write goes ahead unlocked and this is told. Without it a Redis
     * failure fails the write (fail closed).
     */
    onRedisError?: (err: unknown) => void;
  },
) {
  // generous: under load a write on the local FerretDB has been seen to take seconds
  const ttlMs = options.ttlMs ?? 30_000;
  const waitMs = options.waitMs ?? 30_000;
  return async function withLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const key = `${options.prefix}:${id}`;
    const token = randomUUID();
    // never wait past the deadline of the request this write serves
    const limit = budgetMs(waitMs);
    const deadline = Date.now() + limit;
    let delay = 2;
    for (;;) {
      let acquired: boolean;
      try {
        acquired = (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK';
      } catch (err) {
        if (!options.onRedisError) throw err;
        options.onRedisError(err);
        return fn();
      }
      if (acquired) break;
      throwIfAbandoned();
      if (Date.now() > deadline) {
        if (limit < waitMs)
          throw new AppError('DEADLINE_EXCEEDED', 'The request did not complete within its deadline');
        throw new Error(`lock ${key} not acquired within ${waitMs} ms`);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
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
 * document's lock, so the relay's `$pull` never overwrites a concurrent change (and vice versa).
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

/**
 * Runs `fn` holding the locks of all these documents (a bulk write), taken one by one in id order
 * so that two bulk writers over the same documents can never wait for each other in a circle.
 */
export function withLocks<T>(withLock: WithLock, ids: readonly string[], fn: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(ids)].sort();
  const step = (i: number): Promise<T> =>
    i === sorted.length ? fn() : withLock(sorted[i]!, () => step(i + 1));
  return step(0);
}
