import { z } from 'zod';
import { parseInput } from '@lingua/errors';

import { PREMIUM_FEATURES } from './subscription';

export { PREMIUM_FEATURES };

export interface ActiveSubscription {
  status: 'active' | 'expired' | 'cancelled' | 'pending';
  expiresAt: Date;
}

export interface SubscriptionLookup {
  latestFor(owner: { userId?: string; deviceId?: string }): Promise<ActiveSubscription | undefined>;
}

export const EntitlementsInput = z
  .object({ userId: z.string().optional(), deviceId: z.string().optional() })
  .refine((o) => o.userId || o.deviceId, 'a user id or a device id is required');

export interface Entitlements {
  isPremium: boolean;
  subscriptionStatus: string;
  features: string[];
  expiresAt: Date | undefined;
}

/** Premium while a subscription is active, or cancelled but not yet past its paid period. */
export async function getEntitlements(
  raw: unknown,
  deps: { subscriptions: SubscriptionLookup; now: () => Date },
): Promise<Entitlements> {
  const owner = parseInput(EntitlementsInput, raw);
  const sub = await deps.subscriptions.latestFor(owner);
  const paidUp =
    !!sub && sub.expiresAt > deps.now() && (sub.status === 'active' || sub.status === 'cancelled');
  return {
    isPremium: paidUp,
    subscriptionStatus: sub?.status ?? 'none',
    features: paidUp ? [...PREMIUM_FEATURES] : [],
    expiresAt: sub?.expiresAt,
  };
}
