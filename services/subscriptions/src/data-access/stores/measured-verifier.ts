import { isAppError } from '@lingua/errors';
import { receiptVerifications } from '@lingua/metrics';
import type { ReceiptVerifier } from '../../domain/ports';

/** The store's answer, not ours: a receipt it refused is `invalid`, a store or network failure `error`. */
const INVALID = new Set(['RECEIPT_INVALID', 'RECEIPT_VERIFICATION_FAILED']);

/** The verifier with each verification counted (lingua_subscriptions_verifications_total by store and outcome). */
export function measuredVerifier<V extends ReceiptVerifier>(store: string, inner: V): V {
  const verify: ReceiptVerifier['verify'] = async (input) => {
    try {
      const purchase = await inner.verify(input);
      receiptVerifications.inc({ store, outcome: 'valid' });
      return purchase;
    } catch (err) {
      const outcome = isAppError(err) && INVALID.has(err.code) ? 'invalid' : 'error';
      receiptVerifications.inc({ store, outcome });
      throw err;
    }
  };
  return new Proxy(inner, {
    get: (target, prop, receiver) => (prop === 'verify' ? verify : Reflect.get(target, prop, receiver)),
  });
}
