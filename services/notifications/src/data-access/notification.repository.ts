import type { Connection } from 'mongoose';
import type { InAppNotification, NotificationStore } from '../domain/in-app-notification';
import { findPage } from '@lingua/mongo';
import { batchedInserts } from './batched-inserts';

type NotificationDoc = Omit<InAppNotification, 'id'> & { _id: string };

const toNotification = ({ _id, ...d }: NotificationDoc): InAppNotification => ({
  ...d,
  id: _id,
  data: d.data ?? {},
  readAt: d.readAt ?? null,
});

export function notificationRepository(connection: Connection) {
  const col = connection.collection<NotificationDoc>('notifications');
  // insert-if-absent (the id derives from the event id), grouped with concurrent events' inserts
  const inserts = batchedInserts(col);
  return {
    async upsert({ id, ...rest }) {
      await inserts.insert({ _id: id, ...rest });
    },
    async list(q) {
      const filter = {
        userId: q.userId,
        ...(q.unreadOnly && { read: false }),
        ...(q.type && { type: q.type }),
      };
      const { docs, total } = await findPage(col, filter, {
        sort: { createdAt: -1, _id: 1 },
        skip: (q.page - 1) * q.limit,
        limit: q.limit,
      });
      return { items: docs.map(toNotification), total };
    },
    countUnread: (userId) => col.countDocuments({ userId, read: false }),
    async markRead(userId, id, at) {
      // readAt is kept from the first read: marking twice is harmless
      await col.updateOne({ _id: id, userId, read: false }, { $set: { read: true, readAt: at } });
      const doc = await col.findOne({ _id: id, userId });
      return doc ? toNotification(doc) : null;
    },
    async markAllRead(userId, at) {
      const r = await col.updateMany({ userId, read: false }, { $set: { read: true, readAt: at } });
      return r.modifiedCount;
    },
    async remove(userId, id) {
      return (await col.deleteOne({ _id: id, userId })).deletedCount === 1;
    },
    async removeAllForUser(userId) {
      return (await col.deleteMany({ userId })).deletedCount;
    },
    async listForUser(userId: string): Promise<InAppNotification[]> {
      const docs = await col.find({ userId }).sort({ createdAt: -1 }).toArray();
      return docs.map(toNotification);
    },
  } satisfies NotificationStore & Record<string, unknown>;
}
