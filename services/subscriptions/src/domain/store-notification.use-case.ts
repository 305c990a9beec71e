import { AppError } from '@lingua/errors';
import { acknowledgeGranted } from './acknowledge-purchase';
import { planForProduct } from './catalogue';
import { endReplaced, findReplaced } from './plan-change.use-case';
import type { SubscriptionsContext } from './ports';
import { type StorePurchase, type Subscription, subscriptionCreated, type Verifier } from './subscription';
import { applyPurchase, newSubscription } from './verify-receipt.use-case';

export type NotificationOutcome = 'applied' | 'duplicate' | 'unknown_subscription' | 'ignored';

/** What claiming a notification id found. */
export type ClaimResult =
  /** This attempt holds the lease (a new id, or one whose last holder's lease ran out). */
  | { kind: 'claimed'; owner: string }
  /** Applied already: a replay. */
  | { kind: 'done' }
  /** Another attempt holds an unexpired lease: it may still be applying. */
  | { kind: 'in_progress'; retryAfterMs: number };

export interface NotificationJournal {
  /** Claims the id with a lease; a lease that ran out is taken over (its holder died or hung). */
  claim(id: string, now: Date): Promise<ClaimResult>;
  /** The notification is applied: later deliveries are replays. */
  done(id: string, now: Date): Promise<void>;
  /** Gives this attempt's claim back (applying failed), so the store's retry is processed at once. */
  release(id: string, owner: string): Promise<void>;
}

/**
 * Applies a store notification once: the store's notification id is claimed first (a replay is
 * acknowledged and ignored; a delivery while another attempt holds the claim is 409 with
 * Retry-After, never "duplicate", since that attempt may still fail); the claim is released if
 * applying fails, and otherwise expires, so the store's retry is handled either way.
 * A purchase the store still asks us to acknowledge is acknowledged after it is applied.
 * `resolve` turns the notification into the store's current view of the purchase (or undefined to ignore).
 */
export async function handleStoreNotification(
  input: {
    notificationId: string;
    /** The store: purchases are recorded under `<verifier>:<original transaction id>`. */
    verifier: Verifier;
    resolve: () => Promise<{ purchase: StorePurchase; change: string } | undefined>;
  },
  ctx: SubscriptionsContext & { journal: NotificationJournal },
): Promise<NotificationOutcome> {
  const claim = await ctx.journal.claim(input.notificationId, ctx.clock.now());
  if (claim.kind === 'done') return 'duplicate';
  if (claim.kind === 'in_progress') {
    const seconds = Math.max(1, Math.ceil(claim.retryAfterMs / 1000));
    // 409, not 503: the service is healthy (no 5xx for the availability budget); both stores retry any non-2xx
    throw new AppError('CONFLICT', 'This notification is being applied by another delivery; retry later', {
      details: { retryAfterSeconds: seconds },
      headers: { 'Retry-After': String(seconds) },
    });
  }
  try {
    const resolved = await input.resolve();
    let outcome: NotificationOutcome = 'ignored';
    if (resolved) {
      const { purchase } = resolved;
      const sub = await ctx.subscriptions.findByStoreKey(
        `${input.verifier}:${purchase.originalTransactionId}`,
      );
      const replaced = await findReplaced(input.verifier, purchase, ctx);
      // a purchase never sent to verify-receipt has no owner we know of, unless it replaces one we know
      const current = sub
        ? ((await applyPurchase(sub.id, purchase, resolved.change, ctx)) ?? sub)
        : replaced && (await recordSuccessor(purchase, replaced, ctx));
      if (!current) outcome = replaced ? 'ignored' : 'unknown_subscription';
      else {
        // also finishes a plan change whose first delivery stopped between the two writes
        if (replaced) await endReplaced(replaced.id, current, ctx);
        // the store redelivers a failed notification (Pub/Sub for days): its retry re-applies
        // (a no-op by then) and acknowledges, where nothing else might before the 3-day refund
        if ((await acknowledgeGranted(current, purchase, ctx)) === 'failed')
          throw new AppError('PLATFORM_VERIFICATION_ERROR', 'Store acknowledgement failed; retry');
        outcome = 'applied';
      }
    }
    await ctx.journal.done(input.notificationId, ctx.clock.now());
    return outcome;
  } catch (err) {
    // a release that fails too (the database is down) is not fatal: the lease runs out instead
    await ctx.journal.release(input.notificationId, claim.owner).catch(() => undefined);
    throw err;
  }
}

/**
 * The subscription of a purchase that replaces a recorded one (Google plan change notified before
 * the app sent it): owned by the replaced one's owner. A concurrent verify-receipt or duplicate
 * notification may insert it first (unique store key): then theirs is the record.
 * Undefined for a product the catalogue does not sell.
 */
async function recordSuccessor(
  purchase: StorePurchase,
  replaced: Subscription,
  ctx: SubscriptionsContext,
): Promise<Subscription | undefined> {
  const plan = planForProduct(ctx.catalogue, purchase.productId);
  if (!plan) return undefined;
  const now = ctx.clock.now();
  const owner = { userId: replaced.userId ?? undefined, deviceId: replaced.deviceId ?? undefined };
  const sub = newSubscription(owner, replaced.platform, replaced.verifier, purchase, plan, now);
  if (await ctx.subscriptions.insert(sub, [subscriptionCreated(sub, now)])) {
    ctx.eventsStaged();
    return sub;
  }
  return ctx.subscriptions.findByStoreKey(sub.storeKey);
}
