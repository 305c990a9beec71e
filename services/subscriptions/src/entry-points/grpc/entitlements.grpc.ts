import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  EntitlementsInput,
  FeatureAccessInput,
  checkFeatureAccess,
  getEntitlements,
  type SubscriptionLookup,
} from '../../domain/entitlements.use-case';

const owner = (req: { user_id: string; device_id: string }) => ({
  userId: req.user_id || undefined,
  deviceId: req.device_id || undefined,
});

/** EntitlementsService; each RPC names the services that may call it (ai: premium quotas). */
export function registerEntitlementsGrpc(
  server: GrpcServer,
  deps: { subscriptions: SubscriptionLookup; now: () => Date },
): void {
  server.addService(
    loadPackage().lingua.subscriptions.v1.EntitlementsService.service,
    {
      GetEntitlements: async (req) => {
        const e = await getEntitlements(parseInput(EntitlementsInput, owner(req)), deps);
        return {
          is_premium: e.isPremium,
          subscription_status: e.subscriptionStatus,
          features: e.features,
          expires_at: e.expiresAt?.toISOString() ?? '',
        };
      },
      // an unknown or empty feature_id is INVALID_ARGUMENT (VALIDATION_ERROR), never access
      CheckFeatureAccess: async (req) => {
        const a = await checkFeatureAccess(
          parseInput(FeatureAccessInput, { ...owner(req), featureId: req.feature_id }),
          deps,
        );
        return { has_access: a.hasAccess, access_reason: a.accessReason, current_status: a.currentStatus };
      },
    },
    {
      GetEntitlements: ['ai'],
      // no service calls it yet
      CheckFeatureAccess: [],
    },
  );
}
