import type { Connection } from 'mongoose';

/** Remembers which events a consumer has handled, so a redelivery or re-publish is handled once. */
export interface ProcessedEvents {
  has(consumer: string, eventId: string): Promise<boolean>;
  add(consumer: string, eventId: string): Promise<void>;
}

/** Where mongoProcessedEvents keeps its records; `at` is when the event was handled (TTL field). */
export const PROCESSED_EVENTS_COLLECTION = 'processed_events';

/**
 * Kept in the consuming service's own database, next to the state the handler changed. Records are
 * removed by a TTL index on `at` (startService builds it, PROCESSED_EVENTS_TTL_HOURS), which must
 * outlive any redelivery or re-publication of the event.
 */
export function mongoProcessedEvents(
  connection: Connection,
  collectionName = PROCESSED_EVENTS_COLLECTION,
): ProcessedEvents {
  const collection = () => connection.collection<{ _id: string; at: Date }>(collectionName);
  return {
    async has(consumer, eventId) {
      return (await collection().countDocuments({ _id: `${consumer}:${eventId}` }, { limit: 1 })) > 0;
    },
    async add(consumer, eventId) {
      try {
        await collection().insertOne({ _id: `${consumer}:${eventId}`, at: new Date() });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err; // already recorded by a concurrent delivery
      }
    },
  };
}
