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
}

/**
 * Publishes staged events, then removes them from their document. Publishing twice is harmless
 * (Nats-Msg-Id is the event id; consumers record processed ids), losing one is not: an entry
 * is removed only after the stream acknowledged it.
 *
 * Finding pending documents: a kick with a hint reads just that document by `_id`; a kick without
 * one, and the safety-net poll, query `_outboxPending: true`. On MongoDB that query uses its index;
 * the local FerretDB scans the whole collection instead (measured: 15 s over 111k cards), so the
 * poll backs off to ten times the last scan's duration and hinted kicks never scan.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private hints = new Map<string, Set<unknown>>();
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
    if (hint) {
      const ids = this.hints.get(hint.collection) ?? new Set<unknown>();
      ids.add(hint.id);
      this.hints.set(hint.collection, ids);
    } else this.scanRequested = true;
    this.run();
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
    for (const collection of this.options.collections) {
      for (const id of hinted.get(collection.collectionName) ?? []) {
        const doc = await collection.findOne(
          { _id: id, _outboxPending: true } as mongo.Filter<mongo.Document>,
          { projection: { _outbox: 1 }, readConcern: MAJORITY },
        );
        if (doc) await this.publishDocument(collection, doc);
      }
    }
    const intervalMs = this.options.intervalMs ?? 1_000;
    if (!this.scanRequested && Date.now() < this.nextScanAt) return;
    this.scanRequested = false;
    const started = Date.now();
    let backlogLeft = false;
    let scanOldest: number | undefined;
    const batchSize = this.options.batchSize ?? 100;
    for (const collection of this.options.collections) {
      // After a long broker outage the backlog is many batches: drain them all in this poll, one
      // batch after the other, while batches come back full and each one published something (a
      // document that cannot be cleared must not keep the loop going); at most MAX_BATCHES_PER_POLL.
      for (let batch = 0; batch < MAX_BATCHES_PER_POLL && !this.stopped; batch++) {
        const docs = await collection
          .find({ _outboxPending: true }, { projection: { _outbox: 1 }, readConcern: MAJORITY })
          .limit(batchSize)
          .toArray();
        // the backlog's age is what the scan saw before publishing: if publishing fails (NATS down),
        // the age keeps growing at each scrape until a later scan comes back clean
        const oldest = oldestTimestamp(docs);
        if (oldest !== undefined) {
          scanOldest = Math.min(scanOldest ?? oldest, oldest);
          this.oldestPendingAt = Math.min(this.oldestPendingAt ?? oldest, oldest);
        }
        let published = 0;
        for (const doc of docs) published += await this.publishDocument(collection, doc);
        if (docs.length < batchSize) break;
        if (published === 0 || batch === MAX_BATCHES_PER_POLL - 1) {
          backlogLeft = true;
          break;
        }
      }
    }
    // a full scan that published everything it found leaves no known backlog
    this.oldestPendingAt = backlogLeft ? scanOldest : undefined;
    this.nextScanAt = Date.now() + Math.max(intervalMs, 10 * (Date.now() - started));
  }

  /** Publishes a document's staged events and removes them from it; returns how many it published. */
  private async publishDocument(
    collection: mongo.Collection<mongo.Document>,
    doc: mongo.Document,
  ): Promise<number> {
    const entries = (doc._outbox ?? []) as OutboxEntry[];
    for (const entry of entries)
      await this.options.publisher.publish(entry.event, { carriedHeaders: entry.headers });
    const filter = { _id: doc._id } as mongo.Filter<mongo.Document>;
    const ids = entries.map((e) => e.id);
    if (entries.length > 0 && new Set(ids).size === ids.length) {
      // the usual case in one write: the array still holds exactly the entries just published. It
      // grows only by $push and shrinks only by a relay (a $pull, or this write), so this size with
      // these distinct ids is them; anything staged meanwhile makes it match nothing
      const done = await collection.updateOne(
        { ...filter, _outbox: { $size: ids.length }, '_outbox.id': { $all: ids } },
        { $set: { _outbox: [], _outboxPending: false } },
      );
      if (done.matchedCount === 1) return entries.length;
    }
    // events staged meanwhile, another relay took some, or repeated ids: remove just these, one by
    // one and by the whole entry (FerretDB v1, the fallback engine, matches $pull by equality only)
    for (const entry of entries)
      await collection.updateOne(filter, {
        $pull: { _outbox: entry },
      } as unknown as mongo.UpdateFilter<mongo.Document>);
    await collection.updateOne({ ...filter, _outbox: { $size: 0 } }, { $set: { _outboxPending: false } });
    return entries.length;
  }
}

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
