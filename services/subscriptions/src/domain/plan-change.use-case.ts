import type { SubscriptionsContext } from './ports';
import {
  hasAccess,
  type StorePurchase,
  type Subscription,
  subscriptionUpdated,
  type Verifier,
} from './subscription';

/** The event change of a subscription whose purchase another one replaced. */
export const REPLACED_CHANGE = 'replaced';

/** The recorded subscription a purchase replaces, when the store links it to one (Google linkedPurchaseToken). */
export async function findReplaced(
  verifier: Verifier,
  purchase: StorePurchase,
  ctx: Pick<SubscriptionsContext, 'subscriptions'>,
): Promise<Subscription | undefined> {
  const linked = purchase.replacesOriginalTransactionId;
  if (!linked || linked === purchase.originalTransactionId) return undefined;
  return ctx.subscriptions.findByStoreKey(`${verifier}:${linked}`);
}

/**
 * The replaced subscription once its successor carries the entitlement (pure), or undefined when
 * nothing is to change: already replaced (a replay, or an earlier plan change), or the successor
 * grants no access yet (a pending payment: the old purchase keeps access until the new one is paid).
 * It ends now as `expired` (its purchase no longer entitles; the store stops renewing it).
 */
export function endedByReplacement(
  old: Subscription,
  successor: Subscription,
  now: Date,
): Subscription | undefined {
  if (old.replacedBy || old.id === successor.id || !hasAccess(successor, now)) return undefined;
  return {
    ...old,
    status: 'expired',
    expiresAt: old.expiresAt < now ? old.expiresAt : now,
    autoRenewal: false,
    replacedBy: successor.id,
    updatedAt: now,
  };
}

/**
 * Ends the replaced subscription by a version-checked write (idempotent: replays and concurrent
 * duplicates find it replaced). Its subscription.updated (`change: replaced`) carries the role all of
 * the owner's subscriptions give, the successor included, so identity never sees the owner lose
 * premium in between.
 */
export async function endReplaced(
  replacedId: string,
  successor: Subscription,
  ctx: Pick<SubscriptionsContext, 'subscriptions' | 'clock' | 'eventsStaged'>,
): Promise<void> {
  const now = ctx.clock.now();
  let changed = false;
  await ctx.subscriptions.mutate(replacedId, (current) => {
    const next = endedByReplacement(current, successor, now);
    if (!next) return undefined;
    changed = true;
    return { next, events: [subscriptionUpdated(next, REPLACED_CHANGE, current.status, now)] };
  });
  if (changed) ctx.eventsStaged();
}
