import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  getEntitlements,
  PREMIUM_FEATURES,
  type SubscriptionLookup,
} from '../../domain/entitlements.use-case';

const owner = (req: { user_id: string; device_id: string }) => ({
  userId: req.user_id || undefined,
  deviceId: req.device_id || undefined,
});

export function registerEntitlementsGrpc(
  server: GrpcServer,
  deps: { subscriptions: SubscriptionLookup; now: () => Date },
): void {
  server.addService(loadPackage().lingua.subscriptions.v1.EntitlementsService.service, {
    GetEntitlements: async (req) => {
      const e = await getEntitlements(owner(req), deps);
      return {
        is_premium: e.isPremium,
        subscription_status: e.subscriptionStatus,
        features: e.features,
        expires_at: e.expiresAt?.toISOString() ?? '',
      };
    },
    CheckFeatureAccess: async (req) => {
      const e = await getEntitlements(owner(req), deps);
      const premiumFeature = (PREMIUM_FEATURES as readonly string[]).includes(req.feature_id);
      const hasAccess = !premiumFeature || e.isPremium;
      return {
        has_access: hasAccess,
        access_reason: premiumFeature
          ? e.isPremium
            ? 'active_subscription'
            : 'subscription_required'
          : 'free_feature',
        current_status: e.subscriptionStatus,
      };
    },
  });
}
