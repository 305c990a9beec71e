import type { RedisClient } from '@lingua/redis';
import { type EndpointStore, isSubscriber, type WebhookEndpoint } from '../domain/webhook';

/** A safety net only: a version bump lost with a Redis outage cannot keep a stale copy longer than this. */
const MAX_AGE_MS = 30_000;

/**
 * Every enabled endpoint, kept in memory, so the fan-out of an event costs one Redis GET instead of
 * a database query (on FerretDB a filtered query scans the whole collection).
 *
 * Invalidation is exact across replicas: every endpoint write (API changes, circuit and failure
 * counters, disabling) increments a version key in Redis after the database write; a replica reads
 * that version before using its copy and reloads when it changed. The version is read before the
 * reload's query, so a write that lands during the reload bumps past it and forces the next one.
 * Without Redis, subscribers come from the database directly.
 */
export function cachedEndpointStore(
  inner: EndpointStore & { listEnabled(): Promise<WebhookEndpoint[]> },
  redis: RedisClient,
  versionKey: string,
  now: () => number = Date.now,
): EndpointStore {
  let cached: { version: string; loadedAt: number; endpoints: WebhookEndpoint[] } | undefined;
  let loading: { version: string; promise: Promise<WebhookEndpoint[]> } | undefined;

  const bump = async () => {
    // the write is done; without Redis no replica uses its copy (they query the database), and
    // one loaded before the outage expires within MAX_AGE_MS
    await redis.incr(versionKey).catch(() => undefined);
  };
  const afterWrite =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await write(...args);
      await bump();
      return result;
    };

  const load = (version: string) => {
    // one query for every event that finds the same new version
    if (loading?.version === version) return loading.promise;
    const promise = inner.listEnabled().then((endpoints) => {
      // a slower, older load must not replace a newer copy
      if (!cached || Number(version) >= Number(cached.version))
        cached = { version, loadedAt: now(), endpoints };
      return endpoints;
    });
    const current = { version, promise };
    const clear = () => {
      if (loading === current) loading = undefined;
    };
    loading = current;
    promise.then(clear, clear);
    return promise;
  };

  const enabledEndpoints = async (): Promise<WebhookEndpoint[] | null> => {
    let version: string;
    try {
      version = (await redis.get(versionKey)) ?? '0';
    } catch {
      return null; // Redis down: no way to know the copy is current
    }
    if (cached && cached.version === version && now() - cached.loadedAt < MAX_AGE_MS) return cached.endpoints;
    return load(version);
  };

  return {
    ...inner,
    insert: afterWrite(inner.insert),
    update: afterWrite(inner.update),
    remove: afterWrite(inner.remove),
    recordSuccess: afterWrite(inner.recordSuccess),
    recordFailure: afterWrite(inner.recordFailure),
    disableAllOwnedBy: afterWrite(inner.disableAllOwnedBy),
    removeAllOwnedBy: afterWrite(inner.removeAllOwnedBy),
    async claimProbe(id, now, reopenUntil) {
      const claimed = await inner.claimProbe(id, now, reopenUntil);
      if (claimed) await bump();
      return claimed;
    },
    async subscribers(eventName, subjectUserId) {
      const all = await enabledEndpoints();
      if (!all) return inner.subscribers(eventName, subjectUserId);
      return all.filter((e) => isSubscriber(e, eventName, subjectUserId));
    },
  };
}
