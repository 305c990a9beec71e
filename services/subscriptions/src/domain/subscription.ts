import { makeEvent } from '@lingua/contracts';
import type { AnyDomainEvent } from '@lingua/contracts';

export type SubscriptionStatus = 'active' | 'expired' | 'cancelled' | 'pending';
/** Who vouched for the purchase: a store, the sandbox verifier (local runs) or an administrator. */
export type Verifier = 'apple' | 'google' | 'sandbox' | 'admin';
export type Platform = 'ios' | 'android' | 'none';

export const DAY_MS = 86_400_000;

/** Features unlocked by the subscription (spec: Plan features, and the access check's dialogue_training). */
export const PREMIUM_FEATURES = [
  'unlimited_dialogue',
  'advanced_scenarios',
  'detailed_analysis',
  'priority_support',
  'dialogue_training',
] as const;
/** Features that stay with a free account (spec: remain accessible after cancellation). */
export const FREE_FEATURES = ['basic_vocabulary', 'spaced_repetition'] as const;
export const KNOWN_FEATURES = [...PREMIUM_FEATURES, ...FREE_FEATURES] as const;
export type FeatureId = (typeof KNOWN_FEATURES)[number];

export interface Owner {
  userId: string | null;
  deviceId: string | null;
}

export interface Payment {
  transactionId: string;
  amount: number;
  currency: string;
  at: Date;
}

/** One subscription: a store purchase chain (original transaction) or an admin grant. */
export interface Subscription extends Owner {
  id: string;
  planId: string;
  productId: string;
  platform: Platform;
  verifier: Verifier;
  /** `<verifier>:<original transaction id>`, unique: one purchase never yields two subscriptions. */
  storeKey: string;
  originalTransactionId: string;
  latestTransactionId: string;
  status: SubscriptionStatus;
  activatedAt: Date;
  expiresAt: Date;
  autoRenewal: boolean;
  isTrialPeriod: boolean;
  pricePaid: { amount: number; currency: string; wasDiscounted: boolean };
  payments: Payment[];
  cancelledAt: Date | null;
  cancellationReason: string | null;
  cancellationFeedback: string | null;
  refundedAt: Date | null;
  /** Access was ended before the paid period by a cancellation, refund or revocation: it stays cancelled, never 'expires'. */
  endedEarly: boolean;
  appliedOfferId: string | null;
  /**
   * The subscription whose purchase replaced this one (Google plan change / re-signup: a new purchase
   * token linked to this one). Once set, the store's later news about this purchase is not applied.
   */
  replacedBy?: string | null;
  /**
   * The owner's entitlement that this subscription's latest event announced to identity (all of the
   * user's subscriptions, stamped with the user's entitlement version): what the reconciliation
   * compares with the truth.
   */
  announced?: AnnouncedEntitlement | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a store (or the sandbox) says about a purchase, normalised across stores. */
export interface StorePurchase {
  originalTransactionId: string;
  transactionId: string;
  productId: string;
  purchaseDate: Date;
  expiresDate: Date;
  autoRenew: boolean;
  isTrial: boolean;
  /** Minor units (cents); undefined when the store does not say. */
  price: { amount: number; currency: string } | undefined;
  /** The store's view: refunded/revoked purchases end access at once. */
  state: 'active' | 'pending' | 'expired' | 'refunded';
  revokedAt?: Date;
  environment: string;
  /** The store refunds the purchase unless we acknowledge it once access is granted (Google: 3 days). */
  needsAcknowledgement?: boolean;
  /**
   * The purchase this one replaces (Google `linkedPurchaseToken`: upgrade, downgrade, re-signup); the
   * old one stops renewing and this one carries the entitlement from now on.
   */
  replacesOriginalTransactionId?: string;
}

/** Premium while active or cancelled-at-period-end and the paid period has not ended. */
export const hasAccess = (s: Pick<Subscription, 'status' | 'expiresAt'> | undefined, now: Date) =>
  !!s && (s.status === 'active' || s.status === 'cancelled') && s.expiresAt > now;

/** The status a subscription has in the light of the store's answer (pure). */
export function statusFromStore(
  p: StorePurchase,
  now: Date,
): { status: SubscriptionStatus; expiresAt: Date } {
  if (p.state === 'refunded') return { status: 'cancelled', expiresAt: p.revokedAt ?? now };
  if (p.state === 'pending') return { status: 'pending', expiresAt: p.expiresDate };
  if (p.state === 'expired' || p.expiresDate <= now) return { status: 'expired', expiresAt: p.expiresDate };
  // Auto-renew turned off in the store is a cancellation at period end: access until expiry.
  return { status: p.autoRenew ? 'active' : 'cancelled', expiresAt: p.expiresDate };
}

export const daysBetween = (from: Date, to: Date) =>
  Math.max(0, Math.ceil((to.getTime() - from.getTime()) / DAY_MS));

/** The role and subscriptionStatus identity should give the owner (spec: roles; trial while in trial). */
export function impliedUserState(s: Subscription | undefined, now: Date): UserEntitlement {
  const premium = !!s && hasAccess(s, now);
  return {
    userRole: premium ? 'subscriber' : 'user',
    userSubscriptionStatus: premium ? (s.isTrialPeriod ? 'trial' : 'active') : 'inactive',
  };
}

export interface UserEntitlement {
  userRole: 'subscriber' | 'user';
  userSubscriptionStatus: 'active' | 'trial' | 'inactive';
}
export interface AnnouncedEntitlement extends UserEntitlement {
  version: number;
}

/**
 * The subscription that gives its owner access now: of those that do, the one ending last (a
 * cancelled-in-period one bought before another still counts until it ends). Undefined when none does.
 */
export function entitlingSubscription(subs: readonly Subscription[], now: Date): Subscription | undefined {
  let best: Subscription | undefined;
  for (const s of subs) if (hasAccess(s, now) && (!best || s.expiresAt > best.expiresAt)) best = s;
  return best;
}

/** What all of a user's subscriptions together give the user: premium while any of them does. */
export const userEntitlementOf = (subs: readonly Subscription[], now: Date): UserEntitlement =>
  impliedUserState(entitlingSubscription(subs, now), now);

const eventPlatform = (s: Subscription) =>
  s.verifier === 'apple' || s.verifier === 'google'
    ? (s.platform as 'ios' | 'android')
    : ('sandbox' as const);

function eventData(s: Subscription, now: Date) {
  return {
    subscriptionId: s.id,
    userId: s.userId,
    deviceId: s.deviceId,
    planId: s.planId,
    status: s.status,
    platform: eventPlatform(s),
    expiresAt: s.expiresAt.toISOString(),
    autoRenewal: s.autoRenewal,
    isTrialPeriod: s.isTrialPeriod,
    ...impliedUserState(s, now),
  };
}

export const subscriptionCreated = (s: Subscription, now: Date): AnyDomainEvent =>
  makeEvent('subscription.created', eventData(s, now), { now });

/**
 * `userRole` / `userSubscriptionStatus` here are this subscription's alone; for an account's
 * subscription the store (domain/user-entitlement.ts) replaces them, before the write, with what all
 * of the user's subscriptions give and the user's entitlement version.
 */
export const subscriptionUpdated = (
  s: Subscription,
  change: string,
  previousStatus: SubscriptionStatus | undefined,
  now: Date,
): AnyDomainEvent =>
  makeEvent(
    'subscription.updated',
    { ...eventData(s, now), change, ...(previousStatus && { previousStatus }) },
    { now },
  );

/** The spec's Subscription resource. */
export function subscriptionView(s: Subscription, now: Date) {
  return {
    subscription_id: s.id,
    plan_id: s.planId,
    user_id: s.userId,
    device_id: s.deviceId ?? '',
    status: s.status,
    activated_at: s.activatedAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    days_remaining: hasAccess(s, now) ? daysBetween(now, s.expiresAt) : 0,
    auto_renewal: s.autoRenewal,
    billing_cycle: 'monthly',
    is_trial_period: s.isTrialPeriod,
    price_paid: {
      amount: s.pricePaid.amount,
      currency: s.pricePaid.currency,
      was_discounted: s.pricePaid.wasDiscounted,
    },
  };
}
