import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';

/**
 * Durable consumer: a purchase, renewal, refund, cancellation or expiry ends the user's cached
 * premium status at once (every replica reads the same cache), instead of after its lifetime.
 */
export const subscriptionChangedSubscriber = (
  forget: (userId: string) => Promise<void>,
): ConsumerDefinition => ({
  durable: 'ai-subscription-changed',
  events: ['subscription.created', 'subscription.updated'],
  handler: async (event) => {
    const { userId } = (event as DomainEvent<'subscription.created'>).data;
    if (userId) await forget(userId);
  },
});
