import { z } from 'zod';
import { AppError } from '@lingua/errors';
import type { Offer } from './catalogue';
import type { Caller } from './owner';
import type { SubscriptionsContext } from './ports';
import {
  hasAccess,
  PREMIUM_FEATURES,
  type Subscription,
  subscriptionUpdated,
  subscriptionView,
} from './subscription';
import { currentSubscriptionOrFail } from './cancel-subscription.use-case';
import { expiredError } from './subscription-status.use-case';
import { verifyReceipt } from './verify-receipt.use-case';

export const ReactivateInput = z.object({
  offerId: z.string().min(1).max(100).optional(),
  paymentMethodUpdate: z
    .object({ platform: z.enum(['ios', 'android']), newReceiptData: z.string().min(1).max(20_000) })
    .optional(),
});

/**
 * POST /reactivate (response shape ours, see README). A subscription cancelled at period end and still
 * paid up gets auto-renewal back. One whose access has ended needs a new store purchase
 * (payment_method_update.new_receipt_data), verified like verify-receipt; without it: SUBSCRIPTION_EXPIRED.
 */
export async function reactivateSubscription(
  input: z.output<typeof ReactivateInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const now = ctx.clock.now();
  let offer: Offer | undefined;
  if (input.offerId) {
    offer = ctx.catalogue.offers.find((o) => o.offer_id === input.offerId && new Date(o.valid_until) > now);
    if (!offer)
      throw new AppError('VALIDATION_ERROR', 'Unknown or expired offer', {
        details: { offer_id: ['Unknown or expired offer'] },
      });
    if (!offer.retention)
      throw new AppError('VALIDATION_ERROR', 'This offer cannot be used to reactivate', {
        details: { offer_id: ['Not a retention offer'] },
      });
  }
  const found = await currentSubscriptionOrFail(caller, ctx);
  if (found.status === 'active' && hasAccess(found, now))
    throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'Subscription is already active');
  if (found.status === 'pending')
    throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'Subscription payment is pending');

  let sub: Subscription;
  let reactivation: 'auto_renewal_resumed' | 'new_purchase';
  if (hasAccess(found, now)) {
    // cancelled at period end, still paid up: resume renewal (and record the new receipt, if any)
    if (input.paymentMethodUpdate)
      await ctx.verifiers[input.paymentMethodUpdate.platform].verifier.verify({
        receiptData: input.paymentMethodUpdate.newReceiptData,
        productId: found.productId,
      });
    const updated = await ctx.subscriptions.mutate(found.id, (current) => {
      if (!hasAccess(current, now) || current.status !== 'cancelled') return undefined;
      const next: Subscription = {
        ...current,
        status: 'active',
        autoRenewal: true,
        cancelledAt: null,
        cancellationReason: null,
        cancellationFeedback: null,
        appliedOfferId: offer?.offer_id ?? current.appliedOfferId,
        updatedAt: now,
      };
      return { next, events: [subscriptionUpdated(next, 'reactivated', current.status, now)] };
    });
    if (!updated || updated.status !== 'active')
      throw new AppError('CONFLICT', 'Subscription changed meanwhile; retry');
    ctx.eventsStaged();
    sub = updated;
    reactivation = 'auto_renewal_resumed';
  } else {
    if (!input.paymentMethodUpdate) {
      // the answer names the state the status shows: cancelled (at once) is not expired
      if (found.status !== 'cancelled') throw expiredError(found, ctx);
      throw new AppError(
        'SUBSCRIPTION_CANCELLED',
        'Subscription was cancelled and its access has ended; reactivate with a new purchase',
        {
          details: {
            cancelled_at: found.cancelledAt?.toISOString() ?? null,
            requires: 'payment_method_update',
          },
        },
      );
    }
    const result = await verifyReceipt(
      {
        platform: input.paymentMethodUpdate.platform,
        receiptData: input.paymentMethodUpdate.newReceiptData,
        productId: found.productId,
      },
      caller,
      ctx,
    );
    sub = result.subscription;
    reactivation = 'new_purchase';
  }
  return {
    reactivated: true,
    reactivation_type: reactivation,
    subscription: subscriptionView(sub, now),
    applied_offer: offer
      ? {
          offer_id: offer.offer_id,
          discount_percentage: offer.discount_percentage,
          applies_to: 'next_billing_period',
        }
      : null,
    next_billing_date: sub.autoRenewal ? sub.expiresAt.toISOString() : null,
    unlocked_features: hasAccess(sub, now) ? [...PREMIUM_FEATURES] : [],
  };
}
