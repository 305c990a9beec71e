import type { mongo } from 'mongoose';
import type { AnyDomainEvent, DomainEvent } from '@lingua/contracts';
import type { Logger } from '@lingua/logger';
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
  // index: the relay's only query
  _outboxPending: { type: Boolean, index: true, select: false },
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
}

/**
 * Publishes staged events, then removes them from their document. Publishing twice is harmless
 * (Nats-Msg-Id is the event id; consumers record processed ids), losing one is not: an entry
 * is removed only after the stream acknowledged it.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): this {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs ?? 1_000);
    this.timer.unref();
    this.kick();
    return this;
  }

  /** Drain now (called right after a write, so events go out without waiting for the poll). */
  kick(): void {
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
          this.kick();
        }
      });
  }

  /** Waits until everything staged so far is published (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    await this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    for (const collection of this.options.collections) {
      const docs = await collection
        .find({ _outboxPending: true }, { projection: { _outbox: 1 } })
        .limit(this.options.batchSize ?? 100)
        .toArray();
      for (const doc of docs) {
        for (const entry of (doc._outbox ?? []) as OutboxEntry[]) {
          await this.options.publisher.publish(entry.event, { carriedHeaders: entry.headers });
          // $pull by the whole entry as stored: FerretDB v1 matches $pull by equality only, not by condition
          await collection.updateOne({ _id: doc._id }, {
            $pull: { _outbox: entry },
          } as unknown as mongo.UpdateFilter<mongo.Document>);
        }
        await collection.updateOne(
          { _id: doc._id, _outbox: { $size: 0 } },
          { $set: { _outboxPending: false } },
        );
      }
    }
  }
}
