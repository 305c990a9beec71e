import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import type { UserRepository } from '../../domain/ports';
import { applySubscriptionChange } from '../../domain/apply-subscription.use-case';

/** Durable consumer shared by every identity replica: role and subscriptionStatus follow subscriptions. */
export const subscriptionChangedSubscriber = (deps: { users: UserRepository }): ConsumerDefinition => ({
  durable: 'identity-subscription-changed',
  events: ['subscription.created', 'subscription.updated'],
  handler: (event) =>
    applySubscriptionChange(
      event as DomainEvent<'subscription.created'> | DomainEvent<'subscription.updated'>,
      deps,
    ),
});
