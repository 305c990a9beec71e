/** The subscription product the tests buy (the sandbox catalogue's premium plan). */
export const STOREKIT_PRODUCT = 'com.lingua.premium.monthly';
const DAY_MS = 86_400_000;

/**
 * A StoreKit 2 transaction (JWSTransactionDecodedPayload) as the App Store signs it, for a
 * purchase starting at `start` (ms). signedDate is real time: the chain is checked at it.
 */
export function storeKitTransaction(o: {
  bundleId: string;
  original: string;
  id?: string;
  start: number;
  days?: number;
  environment?: string;
  trial?: boolean;
  /** When set, Apple revoked (refunded) it then. */
  revoked?: number;
}) {
  return {
    transactionId: o.id ?? o.original,
    originalTransactionId: o.original,
    bundleId: o.bundleId,
    productId: STOREKIT_PRODUCT,
    subscriptionGroupIdentifier: '21000000',
    purchaseDate: o.start,
    originalPurchaseDate: o.start,
    expiresDate: o.start + (o.days ?? 30) * DAY_MS,
    quantity: 1,
    type: 'Auto-Renewable Subscription',
    inAppOwnershipType: 'PURCHASED',
    signedDate: Date.now(),
    environment: o.environment ?? 'Sandbox',
    transactionReason: 'PURCHASE',
    storefront: 'USA',
    storefrontId: '143441',
    price: o.trial ? 0 : 9990,
    currency: 'USD',
    ...(o.trial && { offerType: 1, offerDiscountType: 'FREE_TRIAL' }),
    ...(o.revoked && { revocationDate: o.revoked, revocationReason: 0 }),
  };
}
