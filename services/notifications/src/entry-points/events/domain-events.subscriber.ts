import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { AnyDomainEvent, EventName } from '@lingua/contracts';
import type { Clock } from '@lingua/auth';
import {
  fanOutEvent,
  type QueuedDelivery,
  type SendFirst,
  subjectUserOf,
} from '../../domain/fan-out-event.use-case';
import type { NotificationStore } from '../../domain/in-app-notification';
import type { ReminderSendLog } from '../../domain/reminders/reminder-send-log';
import { pushFromEvent } from '../../domain/push-from-event.use-case';
import type { PushSender } from '../../domain/push-sender';
import type { UserReach } from '../../domain/user-reach';
import { notifyFromEvent } from '../../domain/notify-from-event.use-case';
import {
  concernsDeletedAccount,
  disableEndpointsOfDeletedAccount,
  eraseDeletedAccount,
  type Tombstones,
} from '../../domain/account-deleted.use-case';
import { type Mailer, sendAccountEmail } from '../../domain/send-account-email.use-case';
import type { DeliveryStore, EndpointStore, OwnerRoles } from '../../domain/webhook';

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
  /** Identity's answer on how to reach a user, and the push providers. */
  users: UserReach;
  push: PushSender;
  /** Reminder sends (the bandit's memory), erased with the account. */
  sends: Pick<ReminderSendLog, 'removeAllForUser'>;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  owners: OwnerRoles;
  /** Deleted accounts: events about them are dropped (they arrive in any order). */
  tombstones: Tombstones;
  mailer: Mailer;
  clock: Clock;
  /** Opens the recipient and link identity sealed on the e-mail events. */
  emailLinkKey: Uint8Array;
  /** Hands new deliveries to the local webhook worker, which sends them at once. */
  dispatchWebhooks: (queued: QueuedDelivery[]) => void;
  /** The local worker's hot path: a healthy endpoint's first attempt, sent before anything is stored. */
  sendFirst?: SendFirst | undefined;
  /** Events handled at the same time by this replica. */
  concurrency?: number;
}

const EMAIL_EVENTS: ReadonlySet<string> = new Set([
  'user.password_reset_requested',
  'user.email_verification_requested',
]);

/**
 * One durable consumer for everything this service reacts to (every replica shares it; a down service
 * catches up on start). Each step is idempotent, so a retry after a partial failure repeats nothing:
 * notifications and deliveries are keyed by the event id.
 */
export async function handleDomainEvent(
  event: AnyDomainEvent,
  deps: DomainEventsDeps,
  /** The event's first delivery by the stream (not a retry after a failure). */
  firstDelivery = false,
) {
  if (await concernsDeletedAccount(event, subjectUserOf(event), deps)) return;
  switch (event.event) {
    case 'user.password_reset_requested':
    case 'user.email_verification_requested':
      await sendAccountEmail(event, deps);
      return;
    default: {
      if (event.event === 'user.deleted') await disableEndpointsOfDeletedAccount(event, deps);
      // webhooks first: partners wait on them; the in-app write runs alongside
      const [queued] = await Promise.all([
        fanOutEvent(event, deps, firstDelivery),
        notifyFromEvent(event, deps),
      ]);
      if (queued.length > 0) deps.dispatchWebhooks(queued);
      if (event.event === 'user.deleted') await eraseDeletedAccount(event, deps);
      // last: a failure before it retries the event without having pushed
      await pushFromEvent(event, deps);
    }
  }
}

export const domainEventsSubscriber = (deps: DomainEventsDeps): ConsumerDefinition => ({
  durable: 'notifications',
  events: HANDLED_EVENTS,
  // concurrent: notifications and deliveries are keyed by event id and receivers de-duplicate; but
  // one user's events keep their order (a user.deleted must not overtake that user's user.created)
  concurrency: deps.concurrency ?? 1,
  orderingKey: (event) => subjectUserOf(event) ?? undefined,
  // notifications and deliveries are insert-if-absent by event id: no processed-event record needed;
  // an e-mail cannot be taken back, so its events keep the record
  idempotent: (event) => !EMAIL_EVENTS.has(event.event),
  handler: (event, meta) => handleDomainEvent(event, deps, meta.deliveryCount === 1),
});
