import { subscriptionUpdated } from './subscription';
import type { SubscriptionsContext } from './ports';

/**
 * Guest → account rule: a device's subscriptions that have no owner yet become the user's. A
 * subscription that already belongs to an account is never moved (the write is guarded on it).
 * Triggered by user.created carrying the device id, and by any authenticated request that names one.
 */
export async function attachGuestSubscriptions(
  input: { userId: string; deviceId: string },
  ctx: Pick<SubscriptionsContext, 'subscriptions' | 'clock' | 'eventsStaged'>,
): Promise<number> {
  const candidates = await ctx.subscriptions.unownedForDevice(input.deviceId);
  let attached = 0;
  for (const candidate of candidates) {
    const now = ctx.clock.now();
    const result = await ctx.subscriptions.mutate(candidate.id, (current) => {
      if (current.userId !== null) return undefined;
      const next = { ...current, userId: input.userId, updatedAt: now };
      return { next, events: [subscriptionUpdated(next, 'attached_to_account', current.status, now)] };
    });
    if (result?.userId === input.userId) attached++;
  }
  if (attached) ctx.eventsStaged();
  return attached;
}
