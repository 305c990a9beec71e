import type { Connection } from 'mongoose';
import type { AccountErasureStore, PendingErasure } from '../domain/erase-account.use-case';

/** The deletion records: one per deleted account whose clean-up is not finished. */
export const ACCOUNT_ERASURES_COLLECTION = 'account_erasures';

interface ErasureDocument {
  _id: string;
  deletedAt: Date;
  avatar?: string | null;
  reason?: string | null;
  /** When a run last began (the request's own, then the sweeper's). */
  triedAt: Date;
  attempts: number;
  lastError?: string | null;
}

export function accountErasureRepository(connection: Connection): AccountErasureStore {
  const erasures = () => connection.db!.collection<ErasureDocument>(ACCOUNT_ERASURES_COLLECTION);
  return {
    async open({ userId, deletedAt, avatar, reason }) {
      await erasures().updateOne(
        { _id: userId },
        {
          $setOnInsert: {
            deletedAt,
            avatar: avatar ?? null,
            reason: reason ?? null,
            triedAt: deletedAt,
            attempts: 1,
          },
        },
        { upsert: true },
      );
    },
    async due(before, limit): Promise<PendingErasure[]> {
      const docs = await erasures()
        .find({ triedAt: { $lt: before } })
        .sort({ triedAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({
        userId: d._id,
        deletedAt: d.deletedAt,
        avatar: d.avatar ?? undefined,
        reason: d.reason ?? undefined,
        attempts: d.attempts,
      }));
    },
    async claim(userId, before, now) {
      const r = await erasures().updateOne(
        { _id: userId, triedAt: { $lt: before } },
        { $set: { triedAt: now }, $inc: { attempts: 1 } },
      );
      return r.modifiedCount === 1;
    },
    async failed(userId, error) {
      await erasures().updateOne({ _id: userId }, { $set: { lastError: error.slice(0, 500) } });
    },
    async close(userId) {
      await erasures().deleteOne({ _id: userId });
    },
  };
}
