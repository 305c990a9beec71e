import type { Logger } from '@lingua/logger';
import type { mongo } from 'mongoose';

/**
 * One index a service needs, as it declares it in its one list (`data-access/indexes.ts`). The name
 * defaults to the one the driver gives (`userId_1_createdAt_-1`), so indexes built before the list
 * existed are recognised instead of duplicated.
 */
export interface IndexSpec {
  collection: string;
  key: Record<string, 1 | -1>;
  name?: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: mongo.Document;
  /** TTL: documents are removed this long after the date in the (single) key field. */
  expireAfterSeconds?: number;
}

/** The index's name as the server knows it. */
export const indexName = (spec: IndexSpec): string =>
  spec.name ??
  Object.entries(spec.key)
    .map(([field, dir]) => `${field}_${dir}`)
    .join('_');

/** `collection.name`: how logs and readiness name an index. */
export const indexLabel = (spec: IndexSpec): string => `${spec.collection}.${indexName(spec)}`;

export interface IndexFailure {
  index: string;
  error: Error;
}

const INDEX_OPTIONS_CONFLICT = 85;

/**
 * Creates one index, or leaves it as it is when it exists. A TTL index whose lifetime setting changed
 * is updated in place with collMod (createIndex refuses it as an options conflict).
 */
async function ensureIndex(db: mongo.Db, spec: IndexSpec): Promise<void> {
  const name = indexName(spec);
  const options: mongo.CreateIndexesOptions = {
    name,
    ...(spec.unique !== undefined && { unique: spec.unique }),
    ...(spec.sparse !== undefined && { sparse: spec.sparse }),
    ...(spec.partialFilterExpression && { partialFilterExpression: spec.partialFilterExpression }),
    ...(spec.expireAfterSeconds !== undefined && { expireAfterSeconds: spec.expireAfterSeconds }),
  };
  try {
    await db.collection(spec.collection).createIndex(spec.key, options);
  } catch (err) {
    if ((err as { code?: number }).code !== INDEX_OPTIONS_CONFLICT || spec.expireAfterSeconds === undefined)
      throw err;
    const existing = (await db.collection(spec.collection).indexes()).find((i) => i.name === name);
    const sameKey = existing && JSON.stringify(existing.key) === JSON.stringify(spec.key);
    if (!sameKey || existing.expireAfterSeconds === undefined) throw err;
    await db.command({
      collMod: spec.collection,
      index: { name, expireAfterSeconds: spec.expireAfterSeconds },
    });
  }
}

/** Creates every index of the list, one after the other; returns those that could not be built. */
export async function ensureIndexes(db: mongo.Db, specs: readonly IndexSpec[]): Promise<IndexFailure[]> {
  const failures: IndexFailure[] = [];
  for (const spec of specs) {
    try {
      await ensureIndex(db, spec);
    } catch (err) {
      failures.push({ index: indexLabel(spec), error: err as Error });
    }
  }
  return failures;
}

export interface IndexBuild {
  /** Readiness: rejects naming every index not built yet. */
  check(): Promise<void>;
  /** Stops retrying. */
  stop(): void;
}

/**
 * Builds a service's indexes at start and waits for them. An index that cannot be built (duplicates
 * under a unique key, a conflicting older definition...) is logged by name and keeps the service
 * not-ready (`check` rejects) while the build is retried with back-off, so it recovers once the
 * data or the old index is fixed, without a restart.
 */
export async function buildIndexes(
  db: mongo.Db,
  specs: readonly IndexSpec[],
  options: { logger: Logger; retryMs?: { first: number; max: number } },
): Promise<IndexBuild> {
  const retry = options.retryMs ?? { first: 1_000, max: 60_000 };
  let pending = await ensureIndexes(db, specs);
  for (const f of pending)
    options.logger.error({ err: f.error, index: f.index }, `index ${f.index} could not be built; not ready`);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const retryLater = (delay: number) => {
    if (stopped || pending.length === 0) return;
    timer = setTimeout(() => {
      const wanted = new Set(pending.map((f) => f.index));
      void ensureIndexes(
        db,
        specs.filter((s) => wanted.has(indexLabel(s))),
      ).then((left) => {
        for (const f of pending)
          if (!left.some((l) => l.index === f.index))
            options.logger.info({ index: f.index }, `index ${f.index} built`);
        pending = left;
        retryLater(Math.min(delay * 2, retry.max));
      });
    }, delay);
    timer.unref();
  };
  retryLater(retry.first);
  return {
    async check() {
      if (pending.length > 0)
        throw new Error(
          `indexes not built: ${pending.map((f) => `${f.index} (${f.error.message})`).join('; ')}`,
        );
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
