import type { Clock } from '@lingua/auth';
import type { AnyDomainEvent, DomainEvent } from '@lingua/contracts';
import type { NotificationStore } from './in-app-notification';
import type { ReminderSendLog } from './reminders/reminder-send-log';
import type { DeliveryStore, EndpointStore } from './webhook';

/** Deleted accounts (the tombstone: the one record of a deleted user this service keeps). */
export interface Tombstones {
  mark(userId: string, deletedAt: Date): Promise<void>;
  isDeleted(userId: string): Promise<boolean>;
}

/**
 * Whether an event concerns an account deleted already. Events are not ordered across replicas (nor
 * are webhook deliveries): a user.created or achievement.unlocked applied after the user.deleted
 * must not bring the account's notifications back, so it is dropped.
 */
export async function concernsDeletedAccount(
  event: AnyDomainEvent,
  userId: string | null,
  deps: { tombstones: Tombstones },
): Promise<boolean> {
  return event.event !== 'user.deleted' && userId !== null && deps.tombstones.isDeleted(userId);
}

/**
 * After user.deleted was fanned out to the endpoints that may still see it: everything this service
 * holds of the account goes (its notifications, its endpoints, their deliveries and attempts); the
 * tombstone, written first, stays. Idempotent: a redelivery finds nothing left.
 */
export async function eraseDeletedAccount(
  event: DomainEvent<'user.deleted'>,
  deps: {
    notifications: NotificationStore;
    endpoints: EndpointStore;
    deliveries: DeliveryStore;
    sends: Pick<ReminderSendLog, 'removeAllForUser'>;
  },
): Promise<void> {
  const { userId } = event.data;
  await deps.notifications.removeAllForUser(userId);
  await deps.sends.removeAllForUser(userId);
  const endpointIds = await deps.endpoints.removeAllOwnedBy(userId);
  await deps.deliveries.removeAllOfEndpoints(endpointIds);
}

export const ACCOUNT_DELETED_REASON = 'account_deleted';

/**
 * A deleted account's own endpoints are disabled before the event fans out: nobody is left to manage
 * them, so they receive nothing more, not even this user.deleted (scope-all endpoints still do);
 * the tombstone goes first, so nothing applied later recreates the account's data. The endpoints are
 * deleted after the fan-out (eraseDeletedAccount). Idempotent: a redelivery finds nothing enabled.
 */
export async function disableEndpointsOfDeletedAccount(
  event: DomainEvent<'user.deleted'>,
  deps: { endpoints: EndpointStore; clock: Clock; tombstones: Tombstones },
): Promise<number> {
  await deps.tombstones.mark(event.data.userId, new Date(event.timestamp));
  return deps.endpoints.disableAllOwnedBy(event.data.userId, ACCOUNT_DELETED_REASON, deps.clock.now());
}
