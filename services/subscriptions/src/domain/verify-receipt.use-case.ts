import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { acknowledgeGranted } from './acknowledge-purchase';
import { isStrongDeviceId } from './device-id';
import { type Plan, planForProduct } from './catalogue';
import type { SubscriptionsContext } from './ports';
import { type Caller, ownerOf } from './owner';
import { endReplaced, findReplaced } from './plan-change.use-case';
import { assertStoreEnvironmentAccepted } from './store-environment';
import {
  hasAccess,
  PREMIUM_FEATURES,
  type Platform,
  type StorePurchase,
  type Subscription,
  statusFromStore,
  subscriptionCreated,
  subscriptionUpdated,
  type Verifier,
} from './subscription';

export const VerifyReceiptInput = z.object({
  platform: z.enum(['ios', 'android']),
  receiptData: z.string().min(1).max(20_000),
  transactionId: z.string().min(1).max(200).optional(),
  productId: z.string().min(1).max(200),
  subscriptionTrigger: z.string().max(100).optional(),
});
export type VerifyReceiptInput = z.infer<typeof VerifyReceiptInput>;

export interface VerifyReceiptResult {
  created: boolean;
  subscription: Subscription;
  purchase: StorePurchase;
  plan: Plan;
}

/** Our record of a verified purchase (new subscription). */
export function newSubscription(
  caller: Caller,
  platform: Platform,
  verifier: Verifier,
  purchase: StorePurchase,
  plan: Plan,
  now: Date,
): Subscription {
  const { status, expiresAt } = statusFromStore(purchase, now);
  const regular = plan.pricing.regular_price;
  const price = purchase.price ?? (purchase.isTrial ? { amount: 0, currency: regular.currency } : regular);
  return {
    id: randomUUID(),
    userId: caller.userId ?? null,
    deviceId: caller.deviceId ?? null,
    planId: plan.plan_id,
    productId: purchase.productId,
    platform,
    verifier,
    storeKey: `${verifier}:${purchase.originalTransactionId}`,
    originalTransactionId: purchase.originalTransactionId,
    latestTransactionId: purchase.transactionId,
    status,
    activatedAt: purchase.purchaseDate,
    expiresAt,
    autoRenewal: purchase.autoRenew,
    isTrialPeriod: purchase.isTrial,
    pricePaid: {
      amount: price.amount,
      currency: price.currency,
      wasDiscounted: !purchase.isTrial && price.amount < regular.amount,
    },
    payments: [
      {
        transactionId: purchase.transactionId,
        amount: price.amount,
        currency: price.currency,
        at: purchase.purchaseDate,
      },
    ],
    cancelledAt: null,
    cancellationReason: null,
    cancellationFeedback: null,
    refundedAt: purchase.state === 'refunded' ? (purchase.revokedAt ?? now) : null,
    appliedOfferId: null,
    endedEarly: purchase.state === 'refunded',
    createdAt: now,
    updatedAt: now,
  };
}

const sameOwner = (s: Subscription, caller: Caller) =>
  caller.userId ? s.userId === caller.userId : s.userId === null && s.deviceId === caller.deviceId;
/**
 * The caller owns the subscription, or claims a guest one for its account. The claim's proof is the
 * purchase itself, verified again by the store (this request's receipt), from the same device.
 * Guest purchases recorded under a device id from before the device-id rule can be claimed with
 * the receipt alone: the app can no longer send such an id.
 */
const mayClaim = (s: Subscription, caller: Caller) =>
  sameOwner(s, caller) ||
  (!!caller.userId &&
    s.userId === null &&
    (s.deviceId === caller.deviceId || !isStrongDeviceId(s.deviceId ?? '')));

/**
 * Verifies a store receipt and activates the subscription. The same purchase never yields two
 * subscriptions (unique store key): sent again by its owner it is answered idempotently, by anyone
 * else it is a conflict. An owner with a subscription that still gives access gets 409. A purchase
 * replacing a recorded one (Google plan change) takes that one's owner and ends it.
 */
export async function verifyReceipt(
  input: z.output<typeof VerifyReceiptInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
): Promise<VerifyReceiptResult> {
  ownerOf(caller); // guests must name their device
  const plan = planForProduct(ctx.catalogue, input.productId);
  if (!plan)
    throw new AppError('RECEIPT_INVALID', 'Unknown product', {
      details: { product_id: [`Unknown product ${input.productId}`] },
    });

  const { name: verifier, verifier: verifierImpl } = ctx.verifiers[input.platform];
  const purchase = await verifierImpl.verify({
    receiptData: input.receiptData,
    transactionId: input.transactionId,
    productId: input.productId,
  });
  if (planForProduct(ctx.catalogue, purchase.productId)?.plan_id !== plan.plan_id)
    throw new AppError('RECEIPT_INVALID', 'Receipt is for another product');
  assertStoreEnvironmentAccepted(purchase, caller, ctx.settings.sandboxPurchases);
  const now = ctx.clock.now();
  if (purchase.state === 'refunded')
    throw new AppError('RECEIPT_INVALID', 'Purchase was refunded or revoked');
  if (purchase.state === 'expired' || purchase.expiresDate <= now)
    throw new AppError('RECEIPT_INVALID', 'Purchase has expired');

  const storeKey = `${verifier}:${purchase.originalTransactionId}`;
  // a plan change (Google): the new purchase takes over the replaced one's owner, then ends it
  const replaced = await findReplaced(verifier, purchase, ctx);
  if (replaced && !mayClaim(replaced, caller))
    throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'This purchase is already linked to another account');
  const buyer: Caller = replaced
    ? {
        userId: replaced.userId ?? caller.userId,
        deviceId: replaced.deviceId ?? caller.deviceId,
      }
    : caller;
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await ctx.subscriptions.findByStoreKey(storeKey);
    if (existing) {
      if (!mayClaim(existing, caller))
        throw new AppError(
          'SUBSCRIPTION_ALREADY_ACTIVE',
          'This purchase is already linked to another account',
        );
      const updated =
        (await applyPurchase(existing.id, purchase, 'receipt_reverified', ctx, caller.userId)) ?? existing;
      // another account's claim won the race for the guest purchase (the write never moves an owner)
      if (caller.userId && updated.userId !== caller.userId)
        throw new AppError(
          'SUBSCRIPTION_ALREADY_ACTIVE',
          'This purchase is already linked to another account',
        );
      // also finishes a plan change whose first request stopped between the two writes
      if (replaced) await endReplaced(replaced.id, updated, ctx);
      // a repeat is also the app's retry of a purchase whose acknowledgement failed earlier
      await acknowledgeGranted(updated, purchase, ctx);
      return { created: false, subscription: updated, purchase, plan };
    }
    const current = await ctx.subscriptions.latestFor(ownerOf(buyer), now);
    // the same purchase, inserted meanwhile by a concurrent request: answer it as a repeat
    if (current?.storeKey === storeKey) continue;
    if (current && current.id !== replaced?.id && hasAccess(current, now) && current.status === 'active')
      throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'A subscription is already active', {
        details: { subscription_id: current.id, expires_at: current.expiresAt.toISOString() },
      });
    const sub = newSubscription(buyer, input.platform, verifier, purchase, plan, now);
    if (await ctx.subscriptions.insert(sub, [subscriptionCreated(sub, now)])) {
      ctx.eventsStaged();
      if (replaced) await endReplaced(replaced.id, sub, ctx);
      // only once the entitlement is stored (Google refunds purchases left unacknowledged for 3 days)
      await acknowledgeGranted(sub, purchase, ctx);
      return { created: true, subscription: sub, purchase, plan };
    }
    // lost a race with the same purchase sent concurrently: answer from the winner's record
  }
  throw new AppError('CONFLICT', 'The purchase is being processed; retry');
}

/**
 * Applies the store's latest view of a purchase to its subscription (renewal, refund, expiry,
 * auto-renew switched off or on) and stages subscription.updated when anything changed.
 */
export async function applyPurchase(
  id: string,
  purchase: StorePurchase,
  change: string,
  ctx: Pick<SubscriptionsContext, 'subscriptions' | 'clock' | 'eventsStaged' | 'catalogue'>,
  claimUserId?: string,
): Promise<Subscription | undefined> {
  const now = ctx.clock.now();
  let changed = false;
  const result = await ctx.subscriptions.mutate(id, (current) => {
    // a replaced purchase's entitlement moved to its successor: the store's later news of it is history
    if (current.replacedBy) return undefined;
    const { status, expiresAt } = statusFromStore(purchase, now);
    const newPayment =
      purchase.state !== 'refunded' &&
      !current.payments.some((p) => p.transactionId === purchase.transactionId);
    const plan = planForProduct(ctx.catalogue, purchase.productId);
    const amount =
      purchase.price?.amount ?? (purchase.isTrial ? 0 : (plan?.pricing.regular_price.amount ?? 0));
    const currency = purchase.price?.currency ?? plan?.pricing.regular_price.currency ?? 'USD';
    const next: Subscription = {
      ...current,
      userId: current.userId ?? claimUserId ?? null,
      status,
      expiresAt,
      autoRenewal: purchase.state === 'refunded' ? false : purchase.autoRenew,
      isTrialPeriod: purchase.isTrial,
      latestTransactionId: purchase.transactionId,
      payments: newPayment
        ? [
            ...current.payments,
            { transactionId: purchase.transactionId, amount, currency, at: purchase.purchaseDate },
          ]
        : current.payments,
      pricePaid: newPayment ? { amount, currency, wasDiscounted: false } : current.pricePaid,
      refundedAt:
        purchase.state === 'refunded'
          ? (current.refundedAt ?? purchase.revokedAt ?? now)
          : current.refundedAt,
      cancelledAt:
        status === 'cancelled'
          ? (current.cancelledAt ?? now)
          : status === 'active'
            ? null
            : current.cancelledAt,
      endedEarly: purchase.state === 'refunded' || (current.endedEarly && status !== 'active'),
      updatedAt: now,
    };
    const same =
      next.userId === current.userId &&
      next.status === current.status &&
      next.expiresAt.getTime() === current.expiresAt.getTime() &&
      next.autoRenewal === current.autoRenewal &&
      next.isTrialPeriod === current.isTrialPeriod &&
      !newPayment &&
      next.refundedAt?.getTime() === current.refundedAt?.getTime();
    if (same) return undefined;
    changed = true;
    const what =
      purchase.state === 'refunded'
        ? 'refunded'
        : newPayment && current.payments.length
          ? 'renewed'
          : current.userId === null && next.userId !== null
            ? 'attached_to_account'
            : change;
    return { next, events: [subscriptionUpdated(next, what, current.status, now)] };
  });
  if (changed) ctx.eventsStaged();
  return result;
}

/** The spec's verify-receipt response data. */
export function verifyReceiptView(r: VerifyReceiptResult, platform: 'ios' | 'android', now: Date) {
  const s = r.subscription;
  return {
    subscription_created: {
      subscription_id: s.id,
      plan_id: s.planId,
      user_id: s.userId,
      device_id: s.deviceId ?? '',
      status: s.status,
    },
    receipt_validation: {
      is_valid: true,
      platform,
      original_transaction_id: r.purchase.originalTransactionId,
      purchase_date: r.purchase.purchaseDate.toISOString(),
      expires_date: r.purchase.expiresDate.toISOString(),
      product_id: r.purchase.productId,
      auto_renew_status: r.purchase.autoRenew,
    },
    subscription_details: {
      activated_at: s.activatedAt.toISOString(),
      expires_at: s.expiresAt.toISOString(),
      auto_renewal: s.autoRenewal,
      billing_cycle: r.plan.billing_cycle,
      is_trial_period: s.isTrialPeriod,
      price_paid: {
        amount: s.pricePaid.amount,
        currency: s.pricePaid.currency,
        was_discounted: s.pricePaid.wasDiscounted,
      },
    },
    unlocked_features: hasAccess(s, now) ? [...PREMIUM_FEATURES] : [],
  };
}
