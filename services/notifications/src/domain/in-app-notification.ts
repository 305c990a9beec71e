/** A notification shown inside the app to one user. */
export const NOTIFICATION_TYPES = [
  'welcome',
  'subscription',
  'achievement',
  'system',
  'study_reminder',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface InAppNotification {
  id: string;
  userId: string;
  type: NotificationType;
  title: string;
  body: string;
  /** Event-specific details the app may use to deep-link (subscription id, achievement id…). */
  data: Record<string, unknown>;
  read: boolean;
  readAt: Date | null;
  createdAt: Date;
}

export interface NotificationQuery {
  userId: string;
  unreadOnly: boolean;
  type?: NotificationType | undefined;
  page: number;
  limit: number;
}

export interface NotificationStore {
  /** Idempotent per id: a redelivered event does not notify twice. */
  upsert(n: InAppNotification): Promise<void>;
  list(q: NotificationQuery): Promise<{ items: InAppNotification[]; total: number }>;
  countUnread(userId: string): Promise<number>;
  /** Marks one of the user's notifications read; null when the user has no such notification. */
  markRead(userId: string, id: string, at: Date): Promise<InAppNotification | null>;
  markAllRead(userId: string, at: Date): Promise<number>;
  remove(userId: string, id: string): Promise<boolean>;
  /** Erases every notification of a user (account deletion). */
  removeAllForUser(userId: string): Promise<number>;
}
