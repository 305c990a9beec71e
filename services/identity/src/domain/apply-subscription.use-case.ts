import type { DomainEvent } from '@lingua/contracts';
import type { UserRepository } from './ports';

/**
 * subscription.created / subscription.updated → the user's role and subscriptionStatus; the next
 * token issued (login or refresh) carries them. Older events than the last applied are ignored.
 */
export async function applySubscriptionChange(
  event: DomainEvent<'subscription.created'> | DomainEvent<'subscription.updated'>,
  deps: { users: UserRepository },
): Promise<void> {
  if (!event.data.userId) return; // a guest (device) subscription: no account to update yet
  await deps.users.applySubscription(event.data.userId, {
    role: event.data.userRole,
    subscriptionStatus: event.data.userSubscriptionStatus,
    at: new Date(event.timestamp),
  });
}
