import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { ClaimResult, NotificationJournal } from '../domain/store-notification.use-case';

export const STORE_NOTIFICATIONS_COLLECTION = 'store_notifications';
/**
 * How long a notification id is remembered: beyond every store's retries (Apple's last is about
 * 6 days after the first; Pub/Sub keeps a message at most 31 days).
 */
export const NOTIFICATION_RETENTION_MS = 32 * 86_400_000;

interface NotificationDoc {
  _id: string;
  state: 'processing' | 'done';
  receivedAt: Date;
  /** The attempt holding the claim (a random id per attempt). */
  owner: string;
  /** Until when the claim is the owner's; after it another attempt may take it over. */
  leaseUntil: Date;
  /** How many attempts claimed it (1 + takeovers), for the log reader. */
  attempts: number;
  doneAt?: Date;
  /** TTL index: the row is removed then (stores stop retrying long before). */
  expireAt: Date;
}

/**
 * Store notifications, keyed by the store's notification id (Apple notificationUUID, Pub/Sub
 * messageId). A claim is a lease (owner + expiry), so a claim left behind by an attempt that never
 * finished (a killed pod, a database failover that broke both the apply and the release) is taken
 * over by the store's next retry once the lease ends, instead of answering "duplicate" forever.
 */
export function notificationLog(
  connection: Connection,
  options: { leaseMs: number; retentionMs: number },
): NotificationJournal {
  const col = connection.collection<NotificationDoc>(STORE_NOTIFICATIONS_COLLECTION);
  const leaseFrom = (now: Date) => new Date(now.getTime() + options.leaseMs);
  const expiryFrom = (now: Date) => new Date(now.getTime() + options.retentionMs);

  return {
    async claim(id, now): Promise<ClaimResult> {
      const owner = randomUUID();
      // twice at most: a row released or expired between our insert and our read is claimed anew
      for (let round = 0; round < 2; round++) {
        try {
          await col.insertOne({
            _id: id,
            state: 'processing',
            receivedAt: now,
            owner,
            leaseUntil: leaseFrom(now),
            attempts: 1,
            expireAt: expiryFrom(now),
          });
          return { kind: 'claimed', owner };
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
        // an expired lease is taken over by one attempt only (a single conditional write)
        const taken = await col.findOneAndUpdate(
          { _id: id, state: 'processing', leaseUntil: { $lte: now } },
          { $set: { owner, leaseUntil: leaseFrom(now), expireAt: expiryFrom(now) }, $inc: { attempts: 1 } },
          { returnDocument: 'after' },
        );
        if (taken) return { kind: 'claimed', owner };
        const row = await col.findOne({ _id: id });
        if (row?.state === 'done') return { kind: 'done' };
        if (row) return { kind: 'in_progress', retryAfterMs: row.leaseUntil.getTime() - now.getTime() };
      }
      return { kind: 'in_progress', retryAfterMs: 1_000 };
    },
    async done(id, now) {
      // whoever holds the lease now: this attempt's apply is complete, so the notification is
      await col.updateOne(
        { _id: id, state: 'processing' },
        { $set: { state: 'done', doneAt: now, expireAt: expiryFrom(now) } },
      );
    },
    async release(id, owner) {
      // only our own claim: one taken over after our lease ended belongs to another attempt now
      await col.deleteOne({ _id: id, state: 'processing', owner });
    },
  };
}
export type NotificationLog = ReturnType<typeof notificationLog>;
