import type { Connection } from 'mongoose';
import type { InAppNotification, NotificationStore } from '../domain/welcome-notification.use-case';

export function notificationRepository(connection: Connection) {
  const col = connection.collection<Omit<InAppNotification, 'id'> & { _id: string }>('notifications');
  return {
    async upsert({ id, ...rest }) {
      await col.updateOne({ _id: id }, { $setOnInsert: rest }, { upsert: true });
    },
    async listForUser(userId: string): Promise<InAppNotification[]> {
      const docs = await col.find({ userId }).sort({ createdAt: -1 }).toArray();
      return docs.map(({ _id, ...d }) => ({ id: _id, ...d }));
    },
  } satisfies NotificationStore & Record<string, unknown>;
}
