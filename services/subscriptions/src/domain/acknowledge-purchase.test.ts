import { shouldAcknowledge } from './acknowledge-purchase';
import { storePurchase } from '../../test/support/purchase.fixture';
import { DAY_MS, type StorePurchase, type Subscription } from './subscription';

const now = new Date('2026-06-01T00:00:00Z');
const purchase = (o: Partial<StorePurchase> = {}): StorePurchase =>
  storePurchase(now, {
    originalTransactionId: 'token-1',
    transactionId: 'GPA.1',
    needsAcknowledgement: true,
    ...o,
  });
const sub = (o: Partial<Subscription> = {}) =>
  ({
    originalTransactionId: 'token-1',
    status: 'active',
    expiresAt: new Date(now.getTime() + 30 * DAY_MS),
    ...o,
  }) as Subscription;

describe('shouldAcknowledge', () => {
  it('When the store waits for it and the stored subscription grants access, Then acknowledge', () => {
    expect(shouldAcknowledge(purchase(), sub(), now)).toBe(true);
    // auto-renew off in the store: still paid for, still granted
    expect(shouldAcknowledge(purchase({ autoRenew: false }), sub({ status: 'cancelled' }), now)).toBe(true);
  });
  it('When the store does not ask for it (acknowledged already, or a store without acknowledgement), Then not', () => {
    expect(shouldAcknowledge(purchase({ needsAcknowledgement: false }), sub(), now)).toBe(false);
    expect(shouldAcknowledge(purchase({ needsAcknowledgement: undefined }), sub(), now)).toBe(false);
  });
  it('When the payment is pending, the purchase refunded or the subscription gives no access, Then not', () => {
    expect(shouldAcknowledge(purchase({ state: 'pending' }), sub({ status: 'pending' }), now)).toBe(false);
    expect(shouldAcknowledge(purchase({ state: 'refunded' }), sub({ status: 'cancelled' }), now)).toBe(false);
    expect(shouldAcknowledge(purchase(), sub({ status: 'expired', expiresAt: now }), now)).toBe(false);
  });
  it('When the record is of another purchase, Then not', () => {
    expect(shouldAcknowledge(purchase(), sub({ originalTransactionId: 'token-2' }), now)).toBe(false);
  });
});
