import type { SubscriptionsContext } from './ports';
import { hasAccess, type StorePurchase, type Subscription } from './subscription';

export type AcknowledgeOutcome = 'acknowledged' | 'not_needed' | 'failed';

/**
 * Whether the purchase is to be acknowledged now (pure): the store asks for it, the purchase is paid
 * (a pending payment cannot be acknowledged) and our record of it grants access. Acknowledging
 * before the entitlement is stored would stop the store's automatic refund for a purchase we never honoured.
 */
export function shouldAcknowledge(purchase: StorePurchase, sub: Subscription, now: Date): boolean {
  return (
    !!purchase.needsAcknowledgement &&
    purchase.state === 'active' &&
    sub.originalTransactionId === purchase.originalTransactionId &&
    hasAccess(sub, now)
  );
}

/**
 * Acknowledges a purchase whose subscription is already stored. Best effort: the entitlement is
 * granted either way, and the store keeps reporting the purchase as unacknowledged, so the next
 * verification, status check or notification of it acknowledges it (the verifier logs the failure).
 */
export async function acknowledgeGranted(
  sub: Subscription,
  purchase: StorePurchase,
  ctx: Pick<SubscriptionsContext, 'verifiers' | 'clock'>,
): Promise<AcknowledgeOutcome> {
  if (!shouldAcknowledge(purchase, sub, ctx.clock.now())) return 'not_needed';
  const verifier = Object.values(ctx.verifiers).find((v) => v.name === sub.verifier)?.verifier;
  if (!verifier?.acknowledge) return 'not_needed';
  try {
    await verifier.acknowledge(purchase);
    return 'acknowledged';
  } catch {
    return 'failed';
  }
}
