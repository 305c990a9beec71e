import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../../domain/in-app-notification';

export const MAX_PAGE_SIZE = 100;

const boolString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const ListNotificationsQuery = z
  .object({
    unreadOnly: boolString.default(false),
    type: z.enum(NOTIFICATION_TYPES).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(20),
  })
  .strict();

export const NotificationParams = z.object({ notificationId: z.string().min(1).max(200) });

export const Notification = z
  .object({
    id: z.string(),
    type: z.enum(NOTIFICATION_TYPES),
    title: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    read: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const CataloguePagination = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: 'CataloguePagination' });

export const NotificationList = z.object({
  notifications: z.array(Notification),
  unreadCount: z.number().int(),
  pagination: CataloguePagination,
});

export const ReadAllResult = z.object({ updated: z.number().int(), unreadCount: z.number().int() });
export const DeletedResult = z.object({ id: z.string(), deleted: z.boolean() });
