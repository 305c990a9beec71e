import { AppError } from '@lingua/errors';
import { accessLevel } from './access';
import { type Caller, usageKey } from './owner';
import type { SubscriptionsContext } from './ports';
import { hasAccess } from './subscription';
import { expiredError } from './subscription-status.use-case';

const nextUtcMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();

/** POST /dialogues/practice: counts a basic dialogue practice; free users have a daily limit (spec: 3 per day). */
export async function startDialoguePractice(caller: Caller, ctx: SubscriptionsContext) {
  const sub = caller.userId
    ? await ctx.subscriptions.latestFor({ userId: caller.userId }, ctx.clock.now())
    : undefined;
  const now = ctx.clock.now();
  const level = accessLevel(caller, sub, now);
  const limit = level === 'free' ? ctx.settings.freeDialoguesPerDay : undefined;
  const taken = await ctx.usage.takeDialogue(usageKey(caller), limit, now);
  if (!taken.counted)
    throw new AppError('QUOTA_EXCEEDED', 'Free daily dialogue practices are used up', {
      details: {
        daily_limit: limit,
        used_today: taken.today,
        resets_at: nextUtcMidnight(now),
        upgrade_url: '/api/v1/subscriptions/plans',
      },
    });
  return {
    practice_counted: true,
    access_type: limit === undefined ? 'unlimited' : 'limited',
    daily_limit: limit ?? null,
    used_today: taken.today,
    remaining_today: limit === undefined ? null : Math.max(0, limit - taken.today),
    resets_at: nextUtcMidnight(now),
  };
}

/** GET /dialogues/usage. */
export async function dialogueUsage(caller: Caller, ctx: SubscriptionsContext) {
  const sub = caller.userId
    ? await ctx.subscriptions.latestFor({ userId: caller.userId }, ctx.clock.now())
    : undefined;
  const now = ctx.clock.now();
  const level = accessLevel(caller, sub, now);
  const limit = level === 'free' ? ctx.settings.freeDialoguesPerDay : undefined;
  const key = usageKey(caller);
  const [today, month] = await Promise.all([
    ctx.usage.dialoguesToday(key, now),
    ctx.usage.dialoguesThisMonth(key, now),
  ]);
  return {
    access_type: limit === undefined ? 'unlimited' : 'limited',
    daily_limit: limit ?? null,
    used_today: today,
    remaining_today: limit === undefined ? null : Math.max(0, limit - today),
    dialogues_this_month: month,
    resets_at: nextUtcMidnight(now),
  };
}

/**
 * /dialogues/advanced: subscribers and admins. Access is decided by the subscription record (a token's
 * role claim can be an hour stale); a lapsed subscriber gets SUBSCRIPTION_EXPIRED, others SUBSCRIPTION_REQUIRED.
 */
export async function advancedDialogues(caller: Caller, ctx: SubscriptionsContext) {
  const sub = caller.userId
    ? await ctx.subscriptions.latestFor({ userId: caller.userId }, ctx.clock.now())
    : undefined;
  const now = ctx.clock.now();
  if (accessLevel(caller, sub, now) === 'free') {
    if (sub && !hasAccess(sub, now) && (sub.status === 'expired' || sub.status === 'active'))
      throw expiredError(sub, ctx);
    throw new AppError('SUBSCRIPTION_REQUIRED', 'Advanced dialogues need a subscription', {
      details: { required_plan: ctx.catalogue.plans[0]!.plan_id, upgrade_url: '/api/v1/subscriptions/plans' },
    });
  }
  return { scenarios: ctx.catalogue.advanced_scenarios, access_type: 'unlimited' };
}
