import type { mongo } from 'mongoose';
import type { AnyDomainEvent, DomainEvent } from '@lingua/contracts';
import type { Logger } from '@lingua/logger';
import { registerOutbox } from '@lingua/metrics';
import type { EventPublisher } from './publisher';
import { currentCarrierHeaders } from './publisher';

/** An event waiting inside the document it describes, with the headers of the request that caused it. */
export interface OutboxEntry {
  id: string;
  event: AnyDomainEvent | DomainEvent;
  headers: Record<string, string>;
}

/**
 * Mongoose schema fields for documents that carry pending events. MongoDB transactions are not
 * available on the local server, so events are written in the SAME single-document write as the
 * change they describe (atomic), and the relay publishes them afterwards.
 */
export const outboxFields = {
  _outbox: { type: [Object], default: undefined, select: false },
  // the relay's only query: give the collection an index on { _outboxPending: 1 } in the service's
  // index list (data-access/indexes.ts)
  _outboxPending: { type: Boolean, select: false },
};

/**
 * Stages events for a write: spread `fields` into a new document, or merge `update` into an
 * update operation, so the events commit atomically with the change.
 */
export function stageEvents(...events: (AnyDomainEvent | DomainEvent)[]) {
  const entries: OutboxEntry[] = events.map((event) => ({
    id: event.id,
    event,
    headers: currentCarrierHeaders(),
  }));
  return {
    fields: { _outbox: entries, _outboxPending: true },
    update: { $push: { _outbox: { $each: entries } }, $set: { _outboxPending: true } },
  };
}

export interface OutboxRelayOptions {
  publisher: EventPublisher;
  /** Collections whose documents may carry staged events. */
  collections: mongo.Collection<mongo.Document>[];
  /**
   * Per collection name, its shard key's fields other than `_id` (ADR 0030): the relay reads and
   * clears a document with them in the filter, so on a sharded cluster each goes to one shard.
   */
  shardKeys?: Record<string, readonly string[]>;
  logger: Logger;
  /** Safety-net poll for events left behind by a NATS outage or a crash. */
  intervalMs?: number;
  batchSize?: number;
  /** The owning service, for the backlog-age metric's `service` label. */
  service?: string;
}

/** Where events were just staged: lets the relay read that one document instead of scanning. */
export interface OutboxHint {
  /** The collection's name (`collection.collectionName`). */
  collection: string;
  id: unknown;
  /** The document's shard-key values besides `_id` (e.g. `{ userId }`), so its read is targeted. */
  shardKey?: Record<string, unknown>;
}

/**
 * Publishes staged events, then removes them from their document. Publishing twice is harmless
 * (Nats-Msg-Id is the event id; consumers record processed ids), losing one is not: an entry
 * is removed only after the stream acknowledged it.
 *
 * Finding pending documents: kicks with hints read just those documents by `_id`; a kick without
 * one, and the safety-net poll, query `_outboxPending: true`. On MongoDB that query uses its index;
 * the local FerretDB scans the whole collection instead (measured: 15 s over 111k cards), so the
 * poll backs off to ten times what the last scan's queries took and hinted kicks never scan.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Per collection, the kicked documents' ids and their shard-key values. */
  private hints = new Map<string, Map<unknown, Record<string, unknown> | undefined>>();
  private scanRequested = true;
  private nextScanAt = 0;
  /** Timestamp (ms) of the oldest staged event the last scan found; undefined once a scan came back clean. */
  private oldestPendingAt: number | undefined;
  private unregisterMetrics: (() => void) | undefined;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): this {
    this.stopped = false;
    this.unregisterMetrics ??= registerOutbox(this.options.service ?? 'unknown', () =>
      this.oldestPendingAt === undefined ? undefined : (Date.now() - this.oldestPendingAt) / 1000,
    );
    this.timer = setInterval(() => this.run(), this.options.intervalMs ?? 1_000);
    this.timer.unref();
    this.run();
    return this;
  }

  /** Drain now (called right after a write, so events go out without waiting for the poll). */
  kick(hint?: OutboxHint): void {
    if (hint) this.hint(hint.collection, hint.id, hint.shardKey);
    else this.scanRequested = true;
    this.run();
  }

  private hint(collection: string, id: unknown, shardKey?: Record<string, unknown>): void {
    const ids = this.hints.get(collection) ?? new Map<unknown, Record<string, unknown> | undefined>();
    ids.set(id, shardKey ?? ids.get(id));
    this.hints.set(collection, ids);
  }

  /** The collection's shard-key fields besides `_id`. */
  private keyFields(collection: mongo.Collection<mongo.Document>): readonly string[] {
    return this.options.shardKeys?.[collection.collectionName] ?? [];
  }

  /** What a read fetches of a pending document: its events, and its shard key for the clearing writes. */
  private projection(collection: mongo.Collection<mongo.Document>) {
    return Object.fromEntries([['_outbox', 1], ...this.keyFields(collection).map((f) => [f, 1])]);
  }

  /** The filter naming one read document: its `_id` and its shard-key values. */
  private filterOf(collection: mongo.Collection<mongo.Document>, doc: mongo.Document) {
    const filter: Record<string, unknown> = { _id: doc._id };
    for (const f of this.keyFields(collection)) if (doc[f] !== undefined) filter[f] = doc[f];
    return filter as mongo.Filter<mongo.Document>;
  }

  private run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err) => this.options.logger.warn({ err }, 'outbox relay: publish failed; will retry'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.run();
        }
      });
  }

  /** Waits until everything staged so far is published (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    this.scanRequested = true;
    await this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregisterMetrics?.();
    this.unregisterMetrics = undefined;
    clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    const hinted = this.hints;
    this.hints = new Map();
    const batchSize = this.options.batchSize ?? 100;
    let failure: unknown;
    for (const collection of this.options.collections) {
      // the documents kicked since the last drain, read a batch at a time by `_id`
      const kicked = [...(hinted.get(collection.collectionName) ?? new Map())];
      for (let i = 0; i < kicked.length; i += batchSize) {
        const batch = kicked.slice(i, i + batchSize);
        const filter: Record<string, unknown> = {
          _id: { $in: batch.map(([id]) => id) },
          _outboxPending: true,
        };
        // the shard-key values the kicks named: the read goes to the shards holding those documents
        for (const f of this.keyFields(collection)) {
          const values = batch.map(([, key]) => key?.[f]);
          if (values.every((v) => v !== undefined)) filter[f] = { $in: [...new Set(values)] };
        }
        const docs = await collection
          .find(filter as mongo.Filter<mongo.Document>, {
            projection: this.projection(collection),
            readConcern: MAJORITY,
          })
          .toArray();
        const result = await this.publishDocuments(collection, docs);
        if (result.failure === undefined) continue;
        failure ??= result.failure;
        // what did not go out is tried again by id at the next run, not left to the slow scan
        for (const doc of result.left)
          this.hint(collection.collectionName, doc._id, hinted.get(collection.collectionName)?.get(doc._id));
        if (result.count === 0) {
          for (const [id, key] of kicked.slice(i + batchSize)) this.hint(collection.collectionName, id, key);
          break;
        }
      }
    }
    const intervalMs = this.options.intervalMs ?? 1_000;
    if (!this.scanRequested && Date.now() < this.nextScanAt) {
      if (failure !== undefined) throw failure;
      return;
    }
    this.scanRequested = false;
    // the back-off follows what the scans cost the database, not the publishing: with the broker
    // down, each publish waits for its timeout, and counting that put the next scan (and the
    // backlog's publication once the broker is back) ten timeouts away
    let scanMs = 0;
    let backlogLeft = false;
    let scanOldest: number | undefined;
    for (const collection of this.options.collections) {
      // After a long broker outage the backlog is many batches: drain them all in this poll, one
      // batch after the other, while batches come back full and each one published something (a
      // document that cannot be cleared must not keep the loop going); at most MAX_BATCHES_PER_POLL.
      for (let batch = 0; batch < MAX_BATCHES_PER_POLL && !this.stopped; batch++) {
        const queried = Date.now();
        const docs = await collection
          .find({ _outboxPending: true }, { projection: this.projection(collection), readConcern: MAJORITY })
          .limit(batchSize)
          .toArray();
        scanMs += Date.now() - queried;
        // the backlog's age is what the scan saw before publishing: if publishing fails (NATS down),
        // the age keeps growing at each scrape until a later scan comes back clean
        const oldest = oldestTimestamp(docs);
        if (oldest !== undefined) {
          scanOldest = Math.min(scanOldest ?? oldest, oldest);
          this.oldestPendingAt = Math.min(this.oldestPendingAt ?? oldest, oldest);
        }
        const result = await this.publishDocuments(collection, docs);
        failure ??= result.failure;
        const published = result.count;
        if (docs.length < batchSize) break;
        if (published === 0 || batch === MAX_BATCHES_PER_POLL - 1) {
          backlogLeft = true;
          break;
        }
      }
    }
    // a full scan that published everything it found leaves no known backlog
    this.oldestPendingAt = backlogLeft ? scanOldest : undefined;
    this.nextScanAt = Date.now() + Math.max(intervalMs, 10 * scanMs);
    if (failure !== undefined) throw failure;
  }

  /**
   * Publishes the documents' staged events, then removes them. Each document's events go out in
   * order; documents go side by side (at most PUBLISH_CONCURRENCY at once), so a batch costs about
   * one publish acknowledgement and one write instead of that many per document. A document whose
   * publish failed keeps its events. Once a failure came before any success (the broker is down),
   * no further document is tried; after a success, the rest are (one bad document does not hold up
   * the others). `left` is what was not published, `count` how many events were.
   */
  private async publishDocuments(
    collection: mongo.Collection<mongo.Document>,
    docs: mongo.Document[],
  ): Promise<{ count: number; left: mongo.Document[]; failure?: unknown }> {
    const published = new Set<mongo.Document>();
    let failure: unknown;
    let next = 0;
    const worker = async () => {
      while (next < docs.length && (failure === undefined || published.size > 0)) {
        const doc = docs[next++]!;
        try {
          for (const entry of entriesOf(doc))
            await this.options.publisher.publish(entry.event, { carriedHeaders: entry.headers });
          published.add(doc);
        } catch (err) {
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PUBLISH_CONCURRENCY, docs.length) }, worker));
    const count = published.size > 0 ? await this.clear(collection, [...published]) : 0;
    return { count, left: docs.filter((doc) => !published.has(doc)), failure };
  }

  /** Removes just-published entries from their documents; returns how many entries that was. */
  private async clear(collection: mongo.Collection<mongo.Document>, docs: mongo.Document[]): Promise<number> {
    // the usual case, one write per document in one round trip: the array still holds exactly the
    // entries just published. It grows only by $push and shrinks only by a relay (a $pull, or this
    // write), so this size with these distinct ids is them; anything staged meanwhile makes it match
    // nothing
    const whole = docs.filter((doc) => {
      const ids = entriesOf(doc).map((e) => e.id);
      return ids.length > 0 && new Set(ids).size === ids.length;
    });
    const matched =
      whole.length === 0
        ? 0
        : (
            await collection.bulkWrite(
              whole.map((doc) => {
                const ids = entriesOf(doc).map((e) => e.id);
                return {
                  updateOne: {
                    filter: {
                      ...this.filterOf(collection, doc),
                      _outbox: { $size: ids.length },
                      '_outbox.id': { $all: ids },
                    },
                    update: { $set: { _outbox: [], _outboxPending: false } },
                  },
                };
              }),
              { ordered: false },
            )
          ).matchedCount;
    // events staged meanwhile, another relay took some, or repeated ids: remove just these entries
    // by their ids (an atomic $pull), then clear the flag if nothing is left. The bulk result does
    // not say which documents it missed, so when any was missed every document goes this way (a
    // no-op for one already cleared)
    const rest = matched === whole.length ? docs.filter((doc) => !whole.includes(doc)) : docs;
    for (const doc of rest) {
      const filter = this.filterOf(collection, doc);
      const ids = entriesOf(doc).map((e) => e.id);
      await collection.updateOne(filter, {
        $pull: { _outbox: { id: { $in: ids } } },
      } as unknown as mongo.UpdateFilter<mongo.Document>);
      await collection.updateOne({ ...filter, _outbox: { $size: 0 } }, { $set: { _outboxPending: false } });
    }
    return docs.reduce((n, doc) => n + entriesOf(doc).length, 0);
  }
}

const entriesOf = (doc: mongo.Document) => (doc._outbox ?? []) as OutboxEntry[];

/** Documents whose events one relay publishes at once. */
const PUBLISH_CONCURRENCY = 32;

/**
 * Staged events are read with majority read concern: on a replica set, a write the primary has not
 * yet replicated can be rolled back by a failover, and an event published for it would announce a
 * change that never happened.
 */
const MAJORITY = { level: 'majority' } as const;

/** Batches one poll publishes at most (then the backlog counts as left over for the next poll). */
const MAX_BATCHES_PER_POLL = 1_000;

/** The earliest event timestamp (ms) staged in these documents, if any. */
function oldestTimestamp(docs: mongo.Document[]): number | undefined {
  let oldest: number | undefined;
  for (const doc of docs)
    for (const entry of (doc._outbox ?? []) as OutboxEntry[]) {
      const at = Date.parse(String(entry.event.timestamp));
      if (Number.isFinite(at) && (oldest === undefined || at < oldest)) oldest = at;
    }
  return oldest;
}
