import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { SubscriptionsConfig } from './config';
import { subscriptionLookup } from './data-access/subscription.repository';
import { registerEntitlementsGrpc } from './entry-points/grpc/entitlements.grpc';

/** Wiring of the subscriptions service; purchase routes arrive with the subscriptions issue. */
export function defineSubscriptionsService(
  config: SubscriptionsConfig,
): ServiceDefinition<SubscriptionsConfig> {
  return {
    config,
    grpc: (server, deps) =>
      registerEntitlementsGrpc(server, {
        subscriptions: subscriptionLookup(deps.mongo.connection),
        now: () => new Date(),
      }),
  };
}

export const start = (config: SubscriptionsConfig) => startService(defineSubscriptionsService(config));
