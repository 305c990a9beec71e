import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';

interface NotificationDoc {
  _id: string;
  state: 'processing' | 'done';
  receivedAt: Date;
}

/**
 * Store notifications already handled, keyed by the store's notification id (Apple notificationUUID,
 * Pub/Sub messageId): a replay is acknowledged and ignored. A claim is released when handling fails,
 * so the store's retry is processed rather than lost.
 */
export function notificationLog(connection: Connection) {
  const col = connection.collection<NotificationDoc>('store_notifications');
  return {
    /** True when this id was not seen before (the caller now owns it). */
    async claim(id: string, now: Date): Promise<boolean> {
      try {
        await col.insertOne({ _id: id, state: 'processing', receivedAt: now });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    async done(id: string) {
      await col.updateOne({ _id: id }, { $set: { state: 'done' } });
    },
    async release(id: string) {
      await col.deleteOne({ _id: id, state: 'processing' });
    },
  };
}
export type NotificationLog = ReturnType<typeof notificationLog>;
