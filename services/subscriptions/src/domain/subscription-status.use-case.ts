import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { acknowledgeGranted } from './acknowledge-purchase';
import { planById } from './catalogue';
import { accessLevel, accessPermissions, featureAccess, isPremiumFeature } from './access';
import { type Caller, ownerOf, usageKey } from './owner';
import type { SubscriptionsContext } from './ports';
import {
  daysBetween,
  DAY_MS,
  hasAccess,
  KNOWN_FEATURES,
  PREMIUM_FEATURES,
  type Subscription,
} from './subscription';
import { applyPurchase } from './verify-receipt.use-case';

export const StatusInput = z.object({ includeFeatures: z.boolean(), checkRenewal: z.boolean() });

/** Asks the store for the latest state when it can be asked; a store outage never fails the status call. */
async function refreshFromStore(sub: Subscription, ctx: SubscriptionsContext) {
  const entry = Object.values(ctx.verifiers).find((v) => v.name === sub.verifier);
  if (!entry?.verifier.refresh) return { checked: false, sub };
  try {
    const purchase = await entry.verifier.refresh(sub);
    if (!purchase) return { checked: false, sub };
    const current = (await applyPurchase(sub.id, purchase, 'store_refreshed', ctx)) ?? sub;
    await acknowledgeGranted(current, purchase, ctx);
    return { checked: true, sub: current };
  } catch {
    return { checked: false, sub };
  }
}

/** GET /status: the caller's subscription, what it unlocks and the free-tier usage. */
export async function getSubscriptionStatus(
  input: z.output<typeof StatusInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const owner = ownerOf(caller);
  let sub = await ctx.subscriptions.latestFor(owner, ctx.clock.now());
  let renewalChecked = false;
  if (sub && input.checkRenewal) ({ checked: renewalChecked, sub } = await refreshFromStore(sub, ctx));
  const now = ctx.clock.now();
  const key = usageKey(caller);
  const [today, month, last] = await Promise.all([
    ctx.usage.dialoguesToday(key, now),
    ctx.usage.dialoguesThisMonth(key, now),
    ctx.usage.lastActivity(key),
  ]);
  const level = accessLevel(caller, sub, now);
  const active = hasAccess(sub, now);
  const plan = sub && planById(ctx.catalogue, sub.planId);
  return {
    subscription_status: {
      is_active: active,
      subscription_id: sub?.id ?? null,
      plan_id: sub?.planId ?? null,
      // stored status, except that a lapsed paid period reads expired before the sweep has run
      status: sub ? (sub.status === 'active' && !active ? 'expired' : sub.status) : 'none',
      activated_at: sub?.activatedAt.toISOString() ?? null,
      expires_at: sub?.expiresAt.toISOString() ?? null,
      days_remaining: sub && active ? daysBetween(now, sub.expiresAt) : 0,
      auto_renewal: sub?.autoRenewal ?? false,
      billing_cycle: plan?.billing_cycle ?? null,
      ...(input.checkRenewal && { renewal_checked: renewalChecked }),
    },
    user_context: {
      user_type: caller.userId ? 'registered' : 'guest',
      device_id: caller.deviceId ?? sub?.deviceId ?? '',
      platform: sub?.platform ?? null,
    },
    access_permissions: accessPermissions(level, today, ctx.settings.freeDialoguesPerDay),
    usage_statistics: {
      dialogues_this_month: month,
      // sentence analysis is counted by the AI service; this service does not see those requests
      analysis_requests: 0,
      last_activity: (last ?? sub?.updatedAt)?.toISOString() ?? null,
    },
    ...(input.includeFeatures && {
      features: {
        unlocked: level === 'free' ? [] : [...PREMIUM_FEATURES],
        locked: level === 'free' ? [...PREMIUM_FEATURES] : [],
        always_available: ['basic_vocabulary', 'spaced_repetition'],
      },
    }),
  };
}

export const FeatureIdInput = z.object({ featureId: z.enum(KNOWN_FEATURES) });

/** GET /check-access/{feature_id}. */
export async function checkFeatureAccess(
  input: z.output<typeof FeatureIdInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const { featureId } = input;
  const sub = await ctx.subscriptions.latestFor(ownerOf(caller), ctx.clock.now());
  const now = ctx.clock.now();
  const today = await ctx.usage.dialoguesToday(usageKey(caller), now);
  const level = accessLevel(caller, sub, now);
  const access = featureAccess(featureId, level, sub, today, ctx.settings.freeDialoguesPerDay, now);
  const premiumFeature = isPremiumFeature(featureId);
  const alternatives: string[] = [];
  if (!access.hasAccess) {
    if (sub?.status === 'expired' || (sub?.status === 'cancelled' && !hasAccess(sub, now)))
      alternatives.push('renew_subscription');
    else if (!sub) alternatives.push('start_free_trial', 'subscribe');
    else alternatives.push('subscribe');
    if (featureId === 'dialogue_training') alternatives.push('wait_for_daily_reset');
    else alternatives.push('use_free_dialogue_practice');
  }
  return {
    feature_id: featureId,
    has_access: access.hasAccess,
    access_reason: access.reason,
    subscription_info: {
      required_plan: premiumFeature ? ctx.catalogue.plans[0]!.plan_id : null,
      upgrade_url: '/api/v1/subscriptions/plans',
      current_status: sub
        ? sub.status === 'active' && !hasAccess(sub, now)
          ? 'expired'
          : sub.status
        : 'none',
    },
    alternative_actions: alternatives,
  };
}

/** Details of SUBSCRIPTION_EXPIRED (spec): when, how long ago, grace left, how to renew. */
export function expiredError(
  sub: Subscription,
  ctx: Pick<SubscriptionsContext, 'catalogue' | 'clock' | 'settings'>,
) {
  const now = ctx.clock.now();
  const daysSince = Math.floor((now.getTime() - sub.expiresAt.getTime()) / DAY_MS);
  return new AppError('SUBSCRIPTION_EXPIRED', 'Subscription has expired', {
    details: {
      expired_at: sub.expiresAt.toISOString(),
      days_since_expiration: Math.max(0, daysSince),
      grace_period_remaining: Math.max(0, ctx.settings.gracePeriodDays - Math.max(0, daysSince)),
      renewal_options: ctx.catalogue.plans.map((p) => ({
        plan_id: p.plan_id,
        price: p.pricing.regular_price.amount,
        currency: p.pricing.regular_price.currency,
      })),
    },
  });
}
