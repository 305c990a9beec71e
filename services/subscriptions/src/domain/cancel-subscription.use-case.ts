import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { retentionOffer } from './catalogue';
import type { Caller } from './owner';
import { ownerOf } from './owner';
import type { SubscriptionsContext } from './ports';
import {
  daysBetween,
  FREE_FEATURES,
  hasAccess,
  PREMIUM_FEATURES,
  type Subscription,
  subscriptionUpdated,
} from './subscription';
import { expiredError } from './subscription-status.use-case';

export const CancelInput = z.object({
  cancellationReason: z.enum(['too_expensive', 'not_using', 'technical_issues', 'other']),
  feedback: z.string().max(2000).optional(),
  immediateCancellation: z.boolean().default(false),
});

/** The subscription an owner can act on, or the spec's error for why there is none. */
export async function currentSubscriptionOrFail(
  caller: Caller,
  ctx: SubscriptionsContext,
): Promise<Subscription> {
  const sub = await ctx.subscriptions.latestFor(ownerOf(caller), ctx.clock.now());
  if (!sub) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'No subscription found');
  return sub;
}

/**
 * POST /cancel. At period end: auto-renewal stops, access continues until expiry (status cancelled,
 * effective date = expiry). Immediately: access ends now. For store-billed subscriptions the user
 * must also stop the renewal in the store; the store's notification then confirms it.
 */
export async function cancelSubscription(
  input: z.output<typeof CancelInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const found = await currentSubscriptionOrFail(caller, ctx);
  const now = ctx.clock.now();
  if (found.status === 'cancelled' && !(input.immediateCancellation && hasAccess(found, now)))
    throw new AppError('SUBSCRIPTION_CANCELLED', 'Subscription is already cancelled', {
      details: {
        cancelled_at: found.cancelledAt?.toISOString() ?? null,
        expires_at: found.expiresAt.toISOString(),
      },
    });
  if (found.status === 'expired' || (found.status === 'active' && !hasAccess(found, now)))
    throw expiredError(found, ctx);

  const sub = await ctx.subscriptions.mutate(found.id, (current) => {
    if (current.status === 'expired') return undefined;
    const next: Subscription = {
      ...current,
      status: 'cancelled',
      autoRenewal: false,
      expiresAt: input.immediateCancellation ? now : current.expiresAt,
      cancelledAt: now,
      cancellationReason: input.cancellationReason,
      cancellationFeedback: input.feedback ?? null,
      endedEarly: input.immediateCancellation,
      updatedAt: now,
    };
    const change = input.immediateCancellation ? 'cancelled_immediately' : 'cancelled_at_period_end';
    return { next, events: [subscriptionUpdated(next, change, current.status, now)] };
  });
  if (!sub || sub.status !== 'cancelled') throw expiredError(found, ctx);
  ctx.eventsStaged();

  const offer = retentionOffer(ctx.catalogue, now);
  return {
    cancellation_processed: {
      subscription_id: sub.id,
      cancellation_effective_date: sub.expiresAt.toISOString(),
      immediate_cancellation: input.immediateCancellation,
      remaining_access_days: daysBetween(now, sub.expiresAt),
    },
    retention_offer: offer
      ? {
          offer_id: offer.offer_id,
          discount_percentage: offer.discount_percentage,
          offer_description: offer.description,
          valid_until: offer.valid_until,
          reactivation_url: '/api/v1/subscriptions/reactivate',
        }
      : null,
    feature_impact: {
      features_will_be_disabled: [...PREMIUM_FEATURES],
      features_remain_accessible: [...FREE_FEATURES],
    },
  };
}
