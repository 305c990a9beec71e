import type { SubscriptionsContext } from './ports';
import { type Subscription, subscriptionUpdated } from './subscription';

/**
 * Moves subscriptions whose paid period has ended to expired and announces it. Safe on any number
 * of replicas at once: each change is a version-checked single-document write, so exactly one
 * replica applies it (and stages its event); the others see the new version and skip.
 */
export async function expireSubscriptions(
  ctx: Pick<SubscriptionsContext, 'subscriptions' | 'clock' | 'eventsStaged'>,
  batch = 100,
): Promise<number> {
  const now = ctx.clock.now();
  const due = await ctx.subscriptions.dueForExpiry(now, batch);
  let expired = 0;
  for (const id of due) {
    let changed = false;
    await ctx.subscriptions.mutate(id, (current) => {
      if (current.status === 'expired' || current.endedEarly || current.expiresAt > now) return undefined;
      changed = true;
      const next: Subscription = { ...current, status: 'expired', autoRenewal: false, updatedAt: now };
      return { next, events: [subscriptionUpdated(next, 'expired', current.status, now)] };
    });
    if (changed) expired++;
  }
  if (expired) ctx.eventsStaged();
  return expired;
}
