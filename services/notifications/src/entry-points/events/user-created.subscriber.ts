import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import {
  createWelcomeNotification,
  type NotificationStore,
} from '../../domain/welcome-notification.use-case';

/** Durable consumer: every replica shares it, and a down service catches up on start. */
export const userCreatedSubscriber = (deps: { notifications: NotificationStore }): ConsumerDefinition => ({
  durable: 'notifications-user-created',
  events: ['user.created'],
  handler: (event) => createWelcomeNotification(event as DomainEvent<'user.created'>, deps),
});
