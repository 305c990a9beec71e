import { z } from 'zod';

import { FREE_FEATURES, KNOWN_FEATURES, PREMIUM_FEATURES } from './subscription';

export { PREMIUM_FEATURES };

export interface ActiveSubscription {
  status: 'active' | 'expired' | 'cancelled' | 'pending';
  expiresAt: Date;
}

export interface SubscriptionLookup {
  latestFor(
    owner: { userId?: string; deviceId?: string },
    now: Date,
  ): Promise<ActiveSubscription | undefined>;
}

const Owner = z.object({ userId: z.string().optional(), deviceId: z.string().optional() });
const hasOwner = (o: z.infer<typeof Owner>) => !!(o.userId || o.deviceId);

export const EntitlementsInput = Owner.refine(hasOwner, 'a user id or a device id is required');

/** Only features we know: an unknown or empty id is a caller's mistake, never a free pass. */
export const FeatureAccessInput = Owner.extend({ featureId: z.enum(KNOWN_FEATURES) }).refine(
  hasOwner,
  'a user id or a device id is required',
);

export interface Entitlements {
  isPremium: boolean;
  subscriptionStatus: string;
  features: string[];
  expiresAt: Date | undefined;
}

/** Premium while a subscription is active, or cancelled but not yet past its paid period. */
export async function getEntitlements(
  owner: z.output<typeof EntitlementsInput>,
  deps: { subscriptions: SubscriptionLookup; now: () => Date },
): Promise<Entitlements> {
  const sub = await deps.subscriptions.latestFor(owner, deps.now());
  const paidUp =
    !!sub && sub.expiresAt > deps.now() && (sub.status === 'active' || sub.status === 'cancelled');
  return {
    isPremium: paidUp,
    subscriptionStatus: sub?.status ?? 'none',
    features: paidUp ? [...PREMIUM_FEATURES] : [],
    expiresAt: sub?.expiresAt,
  };
}

export interface FeatureAccessAnswer {
  hasAccess: boolean;
  accessReason: 'free_feature' | 'active_subscription' | 'subscription_required';
  currentStatus: string;
}

/** Whether another service may open a feature to the owner; unknown features are a VALIDATION_ERROR. */
export async function checkFeatureAccess(
  input: z.output<typeof FeatureAccessInput>,
  deps: { subscriptions: SubscriptionLookup; now: () => Date },
): Promise<FeatureAccessAnswer> {
  const { featureId, ...owner } = input;
  const e = await getEntitlements(owner, deps);
  if ((FREE_FEATURES as readonly string[]).includes(featureId))
    return { hasAccess: true, accessReason: 'free_feature', currentStatus: e.subscriptionStatus };
  return {
    hasAccess: e.isPremium,
    accessReason: e.isPremium ? 'active_subscription' : 'subscription_required',
    currentStatus: e.subscriptionStatus,
  };
}
