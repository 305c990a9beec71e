import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { forgetDeletedUser } from '../../domain/forget-user.use-case';
import type { EntitlementVersions, SubscriptionsContext } from '../../domain/ports';

/** A deleted account's subscriptions are unlinked from it (idempotent: a replay finds nothing left). */
export const userDeletedSubscriber = (
  ctx: SubscriptionsContext & { entitlementVersions: EntitlementVersions },
): ConsumerDefinition => ({
  durable: 'subscriptions-user-deleted',
  events: ['user.deleted'],
  handler: async (event) => {
    await forgetDeletedUser({ userId: (event as DomainEvent<'user.deleted'>).data.userId }, ctx);
  },
});
