import { AppError } from '@lingua/errors';
import { acknowledgeGranted } from './acknowledge-purchase';
import type { SubscriptionsContext } from './ports';
import type { StorePurchase } from './subscription';
import { applyPurchase } from './verify-receipt.use-case';

export type NotificationOutcome = 'applied' | 'duplicate' | 'unknown_subscription' | 'ignored';

export interface NotificationJournal {
  claim(id: string, now: Date): Promise<boolean>;
  done(id: string): Promise<void>;
  release(id: string): Promise<void>;
}

/**
 * Applies a store notification once: the store's notification id is claimed first (a replay is
 * acknowledged and ignored), the claim is released if applying fails so the store's retry is handled.
 * A purchase the store still asks us to acknowledge is acknowledged after it is applied.
 * `resolve` turns the notification into the store's current view of the purchase (or undefined to ignore).
 */
export async function handleStoreNotification(
  input: {
    notificationId: string;
    storeKey: (purchase: StorePurchase) => string;
    resolve: () => Promise<{ purchase: StorePurchase; change: string } | undefined>;
  },
  ctx: SubscriptionsContext & { journal: NotificationJournal },
): Promise<NotificationOutcome> {
  if (!(await ctx.journal.claim(input.notificationId, ctx.clock.now()))) return 'duplicate';
  try {
    const resolved = await input.resolve();
    let outcome: NotificationOutcome = 'ignored';
    if (resolved) {
      const sub = await ctx.subscriptions.findByStoreKey(input.storeKey(resolved.purchase));
      // a purchase never sent to verify-receipt has no owner we know of: nothing to apply it to
      if (!sub) outcome = 'unknown_subscription';
      else {
        const current = (await applyPurchase(sub.id, resolved.purchase, resolved.change, ctx)) ?? sub;
        // the store redelivers a failed notification (Pub/Sub for days): its retry re-applies
        // (a no-op by then) and acknowledges, where nothing else might before the 3-day refund
        if ((await acknowledgeGranted(current, resolved.purchase, ctx)) === 'failed')
          throw new AppError('PLATFORM_VERIFICATION_ERROR', 'Store acknowledgement failed; retry');
        outcome = 'applied';
      }
    }
    await ctx.journal.done(input.notificationId);
    return outcome;
  } catch (err) {
    await ctx.journal.release(input.notificationId).catch(() => undefined);
    throw err;
  }
}
