import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { attachGuestSubscriptions } from '../../domain/attach-guest.use-case';
import type { SubscriptionsContext } from '../../domain/ports';

/** A new account created from a guest device takes over that device's unowned subscriptions. */
export const userCreatedSubscriber = (ctx: SubscriptionsContext): ConsumerDefinition => ({
  durable: 'subscriptions-user-created',
  events: ['user.created'],
  handler: async (event) => {
    const { userId, deviceId } = (event as DomainEvent<'user.created'>).data;
    if (deviceId) await attachGuestSubscriptions({ userId, deviceId }, ctx);
  },
});
