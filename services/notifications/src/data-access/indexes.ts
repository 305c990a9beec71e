import { PROCESSED_EVENTS_COLLECTION } from '@lingua/events';
import { type IndexSpec, platformShardDeclarations, type ShardDeclaration } from '@lingua/mongo';
import { REMINDER_SEND_WINDOW_DAYS } from '../domain/reminders/reminder-send-log';

const DAY_SECONDS = 24 * 3600;

/**
 * Every index of the notifications database, in one place: built and awaited at start
 * (startService); one that cannot be built keeps the service not-ready and is named in the log.
 */
export const notificationsIndexes = (retention: {
  NOTIFICATIONS_RETENTION_DAYS: number;
  WEBHOOK_DELIVERY_RETENTION_DAYS: number;
  /** The bandit's window; the reminder sends are not needed after it. */
  REMINDER_SEND_WINDOW_DAYS?: number;
}): IndexSpec[] => [
  // the list query: a user's notifications, newest first (optionally unread only)
  { collection: 'notifications', key: { userId: 1, read: 1, createdAt: -1 } },
  // the worker's candidates: due pending attempts, oldest first
  { collection: 'webhook_deliveries', key: { status: 1, nextAttemptAt: 1 } },
  // an endpoint's deliveries, newest first
  { collection: 'webhook_deliveries', key: { endpointId: 1, createdAt: -1 } },
  // a delivery's attempt log
  { collection: 'webhook_attempts', key: { deliveryId: 1, at: -1 } },
  // retention (TTL): in-app notifications by age, deliveries and attempts by their last change
  {
    collection: 'notifications',
    key: { createdAt: 1 },
    expireAfterSeconds: retention.NOTIFICATIONS_RETENTION_DAYS * DAY_SECONDS,
  },
  {
    collection: 'webhook_deliveries',
    key: { updatedAt: 1 },
    expireAfterSeconds: retention.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_SECONDS,
  },
  {
    collection: 'webhook_attempts',
    key: { at: 1 },
    expireAfterSeconds: retention.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_SECONDS,
  },
  // fan-out: enabled endpoints subscribed to an event name
  { collection: 'webhook_endpoints', key: { enabled: 1, events: 1 } },
  // an account's endpoints (list, per-account limit)
  { collection: 'webhook_endpoints', key: { ownerId: 1, createdAt: -1 } },
  // a review's reward (the user's latest send in the last 2 h), the user's last-seen templates, erasure
  { collection: 'reminder_sends', key: { userId: 1, sentAt: -1 } },
  // the bandit's statistics (sends in the window) and retention (TTL): sends age out of the window
  {
    collection: 'reminder_sends',
    key: { sentAt: 1 },
    expireAfterSeconds: (retention.REMINDER_SEND_WINDOW_DAYS ?? REMINDER_SEND_WINDOW_DAYS) * DAY_SECONDS,
  },
];

/** How each collection of the notifications database is sharded, or why it is not (ADR 0030). */
export const notificationsShardKeys: ShardDeclaration[] = [
  {
    collection: 'notifications',
    key: { userId: 'hashed' },
    why: "a user's in-app notifications, listed and marked read by user; kept NOTIFICATIONS_RETENTION_DAYS",
  },
  {
    collection: 'reminder_sends',
    key: { userId: 'hashed' },
    why: "one per reminder sent; a review's reward and the last-seen templates read one user",
  },
  {
    collection: 'webhook_endpoints',
    unsharded: 'owned by the few accounts that register webhooks (partners, admins), not by every learner',
  },
  {
    collection: 'webhook_deliveries',
    unsharded:
      "the webhook endpoints' deliveries, kept WEBHOOK_DELIVERY_RETENTION_DAYS; read by the delivery worker across endpoints",
  },
  { collection: 'webhook_attempts', unsharded: "a delivery's attempts, kept as long as the delivery" },
  ...platformShardDeclarations(PROCESSED_EVENTS_COLLECTION),
];
