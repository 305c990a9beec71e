import { AppError } from '@lingua/errors';
import type { Clock } from '@lingua/auth';
import type { InAppNotification, NotificationQuery, NotificationStore } from './in-app-notification';

type Deps = { notifications: NotificationStore; clock: Clock };

export const toPublicNotification = (n: InAppNotification) => ({
  id: n.id,
  type: n.type,
  title: n.title,
  body: n.body,
  data: n.data,
  read: n.read,
  readAt: n.readAt?.toISOString() ?? null,
  createdAt: n.createdAt.toISOString(),
});

/** One page of the user's notifications (newest first) and their unread count. */
export async function listNotifications(q: NotificationQuery, deps: Deps) {
  const [{ items, total }, unreadCount] = await Promise.all([
    deps.notifications.list(q),
    deps.notifications.countUnread(q.userId),
  ]);
  return {
    notifications: items.map(toPublicNotification),
    unreadCount,
    pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) },
  };
}

export async function markNotificationRead(userId: string, id: string, deps: Deps) {
  const n = await deps.notifications.markRead(userId, id, deps.clock.now());
  // another user's notification is reported as missing: its existence is not theirs to learn
  if (!n) throw new AppError('NOT_FOUND', 'Notification not found');
  return toPublicNotification(n);
}

export async function markAllNotificationsRead(userId: string, deps: Deps) {
  const updated = await deps.notifications.markAllRead(userId, deps.clock.now());
  return { updated, unreadCount: 0 };
}

export async function deleteNotification(userId: string, id: string, deps: Deps) {
  if (!(await deps.notifications.remove(userId, id)))
    throw new AppError('NOT_FOUND', 'Notification not found');
  return { id, deleted: true };
}
