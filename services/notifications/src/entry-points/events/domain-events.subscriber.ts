import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { AnyDomainEvent, EventName } from '@lingua/contracts';
import type { Clock } from '@lingua/auth';
import { fanOutEvent, type QueuedDelivery } from '../../domain/fan-out-event.use-case';
import type { NotificationStore } from '../../domain/in-app-notification';
import { notifyFromEvent } from '../../domain/notify-from-event.use-case';
import { type Mailer, sendAccountEmail } from '../../domain/send-account-email.use-case';
import type { DeliveryStore, EndpointStore } from '../../domain/webhook';

export const HANDLED_EVENTS: EventName[] = [
  'user.created',
  'user.deleted',
  'subscription.created',
  'subscription.updated',
  'achievement.unlocked',
  'user.password_reset_requested',
  'user.email_verification_requested',
];

export interface DomainEventsDeps {
  notifications: NotificationStore;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  mailer: Mailer;
  clock: Clock;
  /** Hands new deliveries to the local webhook worker, which sends them at once. */
  dispatchWebhooks: (queued: QueuedDelivery[]) => void;
}

/**
 * One durable consumer for everything this service reacts to (every replica shares it; a down service
 * catches up on start). Each step is idempotent, so a retry after a partial failure repeats nothing:
 * notifications and deliveries are keyed by the event id.
 */
export async function handleDomainEvent(event: AnyDomainEvent, deps: DomainEventsDeps) {
  switch (event.event) {
    case 'user.password_reset_requested':
    case 'user.email_verification_requested':
      await sendAccountEmail(event, deps);
      return;
    default: {
      // webhooks first: partners wait on them; the in-app write runs alongside
      const [queued] = await Promise.all([fanOutEvent(event, deps), notifyFromEvent(event, deps)]);
      if (queued.length > 0) deps.dispatchWebhooks(queued);
    }
  }
}

export const domainEventsSubscriber = (deps: DomainEventsDeps): ConsumerDefinition => ({
  durable: 'notifications',
  events: HANDLED_EVENTS,
  handler: (event) => handleDomainEvent(event, deps),
});
