import { AppError } from '@lingua/errors';
import { type Catalogue, planForProduct } from '../../domain/catalogue';
import type { Clock, ReceiptVerifier } from '../../domain/ports';
import { DAY_MS, type StorePurchase } from '../../domain/subscription';

/**
 * Documented test receipts for local runs (enabled only by configuration, refused in production):
 * `sandbox_<scenario>_<transaction id>`, the transaction id also being the original one.
 * Scenarios: valid, trial, discounted, no_renew, pending, expired, refunded (accepted by the store
 * but not giving access), invalid (RECEIPT_INVALID), failed (RECEIPT_VERIFICATION_FAILED),
 * unavailable (PLATFORM_VERIFICATION_ERROR, as if the store were down).
 */
export const SANDBOX_RECEIPT =
  /^sandbox_(valid|trial|discounted|no_renew|pending|expired|refunded|invalid|failed|unavailable)_([A-Za-z0-9._-]{1,100})$/;

export function sandboxVerifier(deps: { catalogue: Catalogue; clock: Clock }): ReceiptVerifier {
  return {
    async verify({ receiptData, productId }) {
      const match = SANDBOX_RECEIPT.exec(receiptData);
      if (!match) throw new AppError('RECEIPT_INVALID', 'Receipt is not a recognised sandbox receipt');
      const [, scenario, transactionId] = match as unknown as [string, string, string];
      if (scenario === 'invalid') throw new AppError('RECEIPT_INVALID', 'Receipt is invalid');
      if (scenario === 'failed')
        throw new AppError('RECEIPT_VERIFICATION_FAILED', 'The store rejected the receipt');
      if (scenario === 'unavailable')
        throw new AppError('PLATFORM_VERIFICATION_ERROR', 'The store verification service is unavailable');
      const plan = planForProduct(deps.catalogue, productId);
      if (!plan) throw new AppError('RECEIPT_INVALID', 'Unknown product');
      const now = deps.clock.now();
      const trial = scenario === 'trial';
      const days = trial ? plan.trial_period.duration_days : plan.billing_period_days;
      const purchaseDate = scenario === 'expired' ? new Date(now.getTime() - (days + 1) * DAY_MS) : now;
      const price = plan.pricing.regular_price;
      const purchase: StorePurchase = {
        originalTransactionId: transactionId,
        transactionId,
        productId,
        purchaseDate,
        expiresDate: new Date(purchaseDate.getTime() + days * DAY_MS),
        autoRenew: scenario !== 'no_renew',
        isTrial: trial,
        price: trial
          ? { amount: 0, currency: price.currency }
          : scenario === 'discounted'
            ? { amount: plan.pricing.test_period_discount.discounted_amount, currency: price.currency }
            : { amount: price.amount, currency: price.currency },
        state:
          scenario === 'pending'
            ? 'pending'
            : scenario === 'expired'
              ? 'expired'
              : scenario === 'refunded'
                ? 'refunded'
                : 'active',
        environment: 'sandbox',
      };
      if (scenario === 'refunded') purchase.revokedAt = now;
      return purchase;
    },
  };
}
