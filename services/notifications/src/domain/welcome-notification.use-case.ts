import type { DomainEvent } from '@lingua/contracts';

export interface InAppNotification {
  id: string;
  userId: string;
  type: 'welcome' | 'subscription' | 'achievement' | 'system';
  title: string;
  body: string;
  read: boolean;
  createdAt: Date;
}

export interface NotificationStore {
  /** Idempotent per id: a redelivered event does not notify twice. */
  upsert(n: InAppNotification): Promise<void>;
}

/** user.created → a welcome notification for the new user (id derived from the event id). */
export async function createWelcomeNotification(
  event: DomainEvent<'user.created'>,
  deps: { notifications: NotificationStore },
) {
  await deps.notifications.upsert({
    id: `welcome:${event.id}`,
    userId: event.data.userId,
    type: 'welcome',
    title: `Welcome, ${event.data.username}!`,
    body: 'Your account is ready. Add your first words and start reviewing.',
    read: false,
    createdAt: new Date(event.timestamp),
  });
}
