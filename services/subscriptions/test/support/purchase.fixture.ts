import { DAY_MS, type StorePurchase } from '../../src/domain/subscription';

/** A 30-day paid store purchase made at `now`, for the domain's unit tests. */
export const storePurchase = (now: Date, o: Partial<StorePurchase> = {}): StorePurchase => ({
  originalTransactionId: 'o1',
  transactionId: 't1',
  productId: 'p',
  purchaseDate: now,
  expiresDate: new Date(now.getTime() + 30 * DAY_MS),
  autoRenew: true,
  isTrial: false,
  price: undefined,
  state: 'active',
  environment: 'test',
  ...o,
});
