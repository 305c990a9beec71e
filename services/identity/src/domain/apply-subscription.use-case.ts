import type { DomainEvent } from '@lingua/contracts';
import type { UserRepository } from './ports';

/**
 * subscription.created / subscription.updated → the user's role and subscriptionStatus; the next
 * token issued (login or refresh) carries them. An event is applied only when its user entitlement
 * version (`userVersion`, a counter subscriptions keeps per user) is higher than the last applied,
 * so delivery order and the publishing replicas' clocks do not matter; an event without a version
 * (an older publisher) is compared by timestamp until the first versioned one arrives.
 * An event only changes what its publisher owns: the subscriber/user role. It can never grant
 * admin (the contract refuses the value; this mapping would not pass it on either), and an admin
 * stays admin (the repository keeps the role and updates only the subscription status).
 */
export async function applySubscriptionChange(
  event: DomainEvent<'subscription.created'> | DomainEvent<'subscription.updated'>,
  deps: { users: UserRepository },
): Promise<void> {
  if (!event.data.userId) return; // a guest (device) subscription: no account to update yet
  await deps.users.applySubscription(event.data.userId, {
    role: (event.data.userRole as string) === 'subscriber' ? 'subscriber' : 'user',
    subscriptionStatus: event.data.userSubscriptionStatus,
    at: new Date(event.timestamp),
    version: event.data.userVersion,
  });
}
