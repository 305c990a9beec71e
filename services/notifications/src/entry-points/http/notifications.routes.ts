import { Router, type RequestHandler } from 'express';
import { type Clock, currentUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { ApiDocs } from '@lingua/openapi';
import type { NotificationStore } from '../../domain/in-app-notification';
import {
  deleteNotification,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
} from '../../domain/manage-notifications.use-case';
import {
  DeletedResult,
  ListNotificationsQuery,
  Notification,
  NotificationList,
  NotificationParams,
  ReadAllResult,
} from './notifications.schemas';
import { inReadersLanguage } from './notification-text';

/** `/api/notifications` (Group C): the caller's own in-app notifications only. */
export function notificationsRoutes(
  auth: RequestHandler,
  deps: { notifications: NotificationStore; clock: Clock },
  docs: ApiDocs,
) {
  const router = Router();
  const base = '/api/notifications';
  router.use(base, auth);

  router.get(base, async (req, res) => {
    const q = parseInput(ListNotificationsQuery, req.query);
    const list = await listNotifications({ ...q, userId: currentUser(res).sub }, deps);
    sendSuccess(res, { ...list, notifications: list.notifications.map(inReadersLanguage) });
  });
  docs.route({
    method: 'get',
    path: base,
    summary: 'List my notifications (newest first) with the unread count',
    auth: 'access',
    query: ListNotificationsQuery,
    response: NotificationList,
  });

  // before /:notificationId/read so "read-all" is never taken for an id
  router.put(`${base}/read-all`, async (_req, res) => {
    sendSuccess(res, await markAllNotificationsRead(currentUser(res).sub, deps));
  });
  docs.route({
    method: 'put',
    path: `${base}/read-all`,
    operationId: 'notifications.markAllRead',
    summary: 'Mark all my notifications read',
    auth: 'access',
    response: ReadAllResult,
  });

  router.put(`${base}/:notificationId/read`, async (req, res) => {
    const { notificationId } = parseInput(NotificationParams, req.params);
    sendSuccess(
      res,
      inReadersLanguage(await markNotificationRead(currentUser(res).sub, notificationId, deps)),
    );
  });
  docs.route({
    method: 'put',
    path: `${base}/:notificationId/read`,
    operationId: 'notifications.markRead',
    summary: 'Mark one of my notifications read',
    auth: 'access',
    params: NotificationParams,
    response: Notification,
    errors: { 404: 'No such notification of the caller' },
  });

  router.delete(`${base}/:notificationId`, async (req, res) => {
    const { notificationId } = parseInput(NotificationParams, req.params);
    sendSuccess(res, await deleteNotification(currentUser(res).sub, notificationId, deps));
  });
  docs.route({
    method: 'delete',
    path: `${base}/:notificationId`,
    summary: 'Delete one of my notifications',
    auth: 'access',
    params: NotificationParams,
    response: DeletedResult,
    errors: { 404: 'No such notification of the caller' },
  });
  return router;
}
