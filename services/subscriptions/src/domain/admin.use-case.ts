import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { planById } from './catalogue';
import type { SubscriptionsContext } from './ports';
import {
  DAY_MS,
  hasAccess,
  type Subscription,
  subscriptionCreated,
  subscriptionUpdated,
  subscriptionView,
} from './subscription';

const id = z.string().min(1).max(100);

export const AdminListInput = z.object({
  userId: id.optional(),
  deviceId: id.optional(),
  status: z.enum(['active', 'expired', 'cancelled', 'pending']).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Admin view: the spec's Subscription plus how it was obtained and its cancellation/refund trail. */
export function adminView(s: Subscription, now: Date) {
  return {
    ...subscriptionView(s, now),
    platform: s.platform,
    verifier: s.verifier,
    original_transaction_id: s.originalTransactionId,
    latest_transaction_id: s.latestTransactionId,
    cancelled_at: s.cancelledAt?.toISOString() ?? null,
    cancellation_reason: s.cancellationReason,
    refunded_at: s.refundedAt?.toISOString() ?? null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export async function adminListSubscriptions(
  input: z.output<typeof AdminListInput>,
  ctx: SubscriptionsContext,
) {
  const q = input;
  const { items, total } = await ctx.subscriptions.list(
    { userId: q.userId, deviceId: q.deviceId },
    { status: q.status },
    (q.page - 1) * q.limit,
    q.limit,
  );
  const now = ctx.clock.now();
  return {
    subscriptions: items.map((s) => adminView(s, now)),
    pagination: {
      current_page: q.page,
      total_pages: Math.max(1, Math.ceil(total / q.limit)),
      total_items: total,
      items_per_page: q.limit,
    },
  };
}

export const SubscriptionIdInput = z.object({ subscriptionId: id });

export async function adminGetSubscription(
  input: z.output<typeof SubscriptionIdInput>,
  ctx: SubscriptionsContext,
) {
  const { subscriptionId } = input;
  const sub = await ctx.subscriptions.findById(subscriptionId);
  if (!sub) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'No subscription found');
  return adminView(sub, ctx.clock.now());
}

export const GrantInput = z.object({
  userId: id,
  planId: id,
  durationDays: z.number().int().min(1).max(366),
  reason: z.string().min(1).max(500),
});

/** Grants a complimentary subscription (no store); 409 when the user already has access. */
export async function adminGrantSubscription(
  input: z.output<typeof GrantInput>,
  adminId: string,
  ctx: SubscriptionsContext,
) {
  const plan = planById(ctx.catalogue, input.planId);
  if (!plan)
    throw new AppError('VALIDATION_ERROR', 'Unknown plan', { details: { plan_id: ['Unknown plan'] } });
  const now = ctx.clock.now();
  const current = await ctx.subscriptions.latestFor({ userId: input.userId }, now);
  if (hasAccess(current, now))
    throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'The user already has an active subscription');
  const grantId = randomUUID();
  const sub: Subscription = {
    id: randomUUID(),
    userId: input.userId,
    deviceId: null,
    planId: plan.plan_id,
    productId: plan.product_id,
    platform: 'none',
    verifier: 'admin',
    storeKey: `admin:${grantId}`,
    originalTransactionId: grantId,
    latestTransactionId: grantId,
    status: 'active',
    activatedAt: now,
    expiresAt: new Date(now.getTime() + input.durationDays * DAY_MS),
    autoRenewal: false,
    isTrialPeriod: false,
    pricePaid: { amount: 0, currency: plan.pricing.regular_price.currency, wasDiscounted: true },
    payments: [],
    cancelledAt: null,
    cancellationReason: null,
    cancellationFeedback: `granted by ${adminId}: ${input.reason}`,
    refundedAt: null,
    appliedOfferId: null,
    endedEarly: false,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.subscriptions.insert(sub, [subscriptionCreated(sub, now)]);
  ctx.eventsStaged();
  return adminView(sub, now);
}

export const RevokeInput = z.object({ subscriptionId: id, reason: z.string().min(1).max(500) });

/** Ends a subscription's access now (support cases, fraud); the store is not contacted. */
export async function adminRevokeSubscription(
  input: z.output<typeof RevokeInput>,
  adminId: string,
  ctx: SubscriptionsContext,
) {
  const now = ctx.clock.now();
  const sub = await ctx.subscriptions.mutate(input.subscriptionId, (current) => {
    if (!hasAccess(current, now) && current.status !== 'pending') return undefined;
    const next: Subscription = {
      ...current,
      status: 'cancelled',
      autoRenewal: false,
      expiresAt: now,
      cancelledAt: now,
      cancellationReason: 'revoked_by_admin',
      endedEarly: true,
      cancellationFeedback: `revoked by ${adminId}: ${input.reason}`,
      updatedAt: now,
    };
    return { next, events: [subscriptionUpdated(next, 'revoked', current.status, now)] };
  });
  if (!sub) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'No subscription found');
  if (sub.cancellationReason !== 'revoked_by_admin' || sub.expiresAt.getTime() !== now.getTime())
    throw new AppError('SUBSCRIPTION_CANCELLED', 'Subscription gives no access any more');
  ctx.eventsStaged();
  return adminView(sub, now);
}
