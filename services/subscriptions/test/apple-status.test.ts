import { SignJWT } from 'jose';
import { type ApplePki, makeApplePki } from './support/apple-pki';
import { type AppStoreStandIn, startAppStoreStandIn } from './support/app-store-stand-in';
import { DAY, type Harness, PRODUCT, renewalInfo, startSubscriptions, tx, until } from './harness';

const BUNDLE = 'com.lingua.test';
const BASE = '/api/v1/subscriptions';
// generous: the machine is shared and tests wait for events
jest.setTimeout(120_000);
let pki: ApplePki;
let apple: AppStoreStandIn;
let h: Harness;

beforeAll(async () => {
  pki = makeApplePki();
  apple = await startAppStoreStandIn(pki, { bundleId: BUNDLE });
  h = await startSubscriptions({
    SUBSCRIPTIONS_IOS_VERIFIER: 'apple',
    APPLE_ROOT_CERTS: pki.rootPemFile,
    APPLE_BUNDLE_ID: BUNDLE,
    APPLE_IAP_ISSUER_ID: apple.issuerId,
    APPLE_IAP_KEY_ID: apple.keyId,
    APPLE_IAP_PRIVATE_KEY_FILE: apple.keyFile,
    APPLE_IAP_API_URL: apple.url,
    STORE_TIMEOUT_MS: '1000',
  });
});
afterAll(async () => {
  await h?.stop();
  await apple?.close();
  pki?.cleanup();
});

/** A StoreKit 2 transaction as the App Store signs it (signedDate is real time: the chain is checked at it). */
const transaction = (original: string, id: string, start: number, days = 30) => ({
  transactionId: id,
  originalTransactionId: original,
  bundleId: BUNDLE,
  productId: PRODUCT,
  subscriptionGroupIdentifier: '21000000',
  purchaseDate: start,
  originalPurchaseDate: start,
  expiresDate: start + days * DAY,
  type: 'Auto-Renewable Subscription',
  inAppOwnershipType: 'PURCHASED',
  signedDate: Date.now(),
  environment: 'Sandbox',
  transactionReason: 'PURCHASE',
  price: 9990,
  currency: 'USD',
});

/** A user who bought a 30-day subscription now; Apple knows of it. */
async function subscribed() {
  const user = h.user();
  const original = tx();
  const start = h.clock.now().getTime();
  const first = transaction(original, original, start);
  apple.subscriptions.set(original, { status: 1, transaction: first, renewal: renewalInfo(original) });
  const res = await h.post(
    `${BASE}/verify-receipt`,
    { platform: 'ios', receipt_data: await pki.sign(first), transaction_id: original, product_id: PRODUCT },
    user.auth,
  );
  expect(res.status).toBe(201);
  return { user, original, start, id: res.body.data.subscription_created.subscription_id as string };
}
const status = (user: { auth: Record<string, string> }) =>
  h.get(`${BASE}/status?check_renewal=true`, user.auth).then((r) => {
    expect(r.status).toBe(200);
    return r.body.data.subscription_status;
  });

describe('GET status?check_renewal=true asks the App Store Server API (Get All Subscription Statuses)', () => {
  it('When Apple renewed the subscription and no notification arrived, Then check_renewal picks the renewal up', async () => {
    const { user, original, start, id } = await subscribed();
    h.clock.advance(31 * DAY);
    // our record lapsed (the expiry sweep may already have applied it)
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.is_active).toBe(false);
    const renewed = transaction(original, `${original}-r1`, start + 30 * DAY);
    apple.subscriptions.set(original, { status: 1, transaction: renewed, renewal: renewalInfo(original) });

    const s = await status(user);
    expect(s).toMatchObject({ renewal_checked: true, is_active: true, status: 'active', days_remaining: 29 });
    expect(s.expires_at).toBe(new Date(start + 60 * DAY).toISOString());
    expect(apple.calls.filter((c) => c.transactionId === original)).toEqual([
      { transactionId: original, authorized: true },
    ]);
    const renewedEvent = () =>
      h.eventsFor(id).find((e) => (e.data as { change?: string }).change === 'renewed');
    await until(() => !!renewedEvent());
    expect(renewedEvent()!.data).toMatchObject({
      change: 'renewed',
      status: 'active',
      userRole: 'subscriber',
    });
    // stored: the plain status read (no store call) sees it too
    const plain = await h.get(`${BASE}/status`, user.auth);
    expect(plain.body.data.subscription_status).toMatchObject({ is_active: true, expires_at: s.expires_at });
  });

  it('When Apple reports auto-renew turned off, Then the subscription reads cancelled with access to the period end', async () => {
    const { user, original, start } = await subscribed();
    apple.subscriptions.set(original, {
      status: 1,
      transaction: transaction(original, original, start),
      renewal: renewalInfo(original, false),
    });
    expect(await status(user)).toMatchObject({
      renewal_checked: true,
      status: 'cancelled',
      is_active: true,
      auto_renewal: false,
    });
  });

  it('When Apple fails or times out, Then the cached state is answered with renewal_checked false, not an error', async () => {
    const { user, original, start } = await subscribed();
    const cached = new Date(start + 30 * DAY).toISOString();
    apple.subscriptions.set(original, {
      status: 1,
      transaction: transaction(original, `${original}-r1`, start + 30 * DAY),
      renewal: renewalInfo(original),
    });
    apple.failing.add(original);
    expect(await status(user)).toMatchObject({ renewal_checked: false, is_active: true, expires_at: cached });
    apple.failing.delete(original);
    apple.slow.add(original);
    const began = Date.now();
    expect(await status(user)).toMatchObject({ renewal_checked: false, is_active: true, expires_at: cached });
    expect(Date.now() - began).toBeLessThan(2_900); // STORE_TIMEOUT_MS (1 s), not Apple's 3 s
    apple.slow.delete(original);
    expect(apple.calls.filter((c) => c.transactionId === original).every((c) => c.authorized)).toBe(true);
  });

  it('When a call is not signed with the in-app purchase key, Then the stand-in refuses it like Apple', async () => {
    const { original } = await subscribed();
    const other = await new SignJWT({ bid: BUNDLE })
      .setProtectedHeader({ alg: 'HS256', kid: apple.keyId })
      .setIssuer(apple.issuerId)
      .setAudience('appstoreconnect-v1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('not-the-key-not-the-key-not-the-key'));
    const res = await fetch(`${apple.url}/inApps/v1/subscriptions/${original}`, {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(res.status).toBe(401);
    expect(apple.calls.at(-1)).toMatchObject({ transactionId: original, authorized: false });
  });
});
