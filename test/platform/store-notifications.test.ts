import { randomUUID } from 'node:crypto';
import { isolatedServiceEnv, uniqueName, waitFor } from '@lingua/testing';
import { makeApplePki, type ApplePki } from '../../services/subscriptions/test/support/apple-pki';
import {
  STOREKIT_PRODUCT as PRODUCT,
  storeKitTransaction,
} from '../../services/subscriptions/test/support/storekit.fixture';
import { type PlayStandIn, startPlayStandIn } from '../../services/subscriptions/test/support/play-stand-in';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// The stores' servers as they really call us: through the gateway, with no user token. Apple proves
// itself by the signature chain of its payload, Google's Pub/Sub push by its own OIDC token in
// Authorization; a refund they report must take the premium away from the user who bought it.

const BUNDLE = 'com.lingua.test';
const SKU = 'premium_monthly';
const DAY = 86_400_000;
const PUSH_AUDIENCE = 'https://api.lingua.test/api/v1/subscriptions/notifications/google';
const PUSH_EMAIL = 'pubsub-push@lingua-test.iam.gserviceaccount.com';
jest.setTimeout(120_000);

let pki: ApplePki;
let play: PlayStandIn;
let stack: InProcessStack;
let gateway: string;

beforeAll(async () => {
  pki = makeApplePki();
  play = await startPlayStandIn(BUNDLE);
  stack = await startInProcessStack(
    isolatedServiceEnv({
      SUBSCRIPTIONS_IOS_VERIFIER: 'apple',
      APPLE_ROOT_CERTS: pki.rootPemFile,
      APPLE_BUNDLE_ID: BUNDLE,
      SUBSCRIPTIONS_ANDROID_VERIFIER: 'google',
      GOOGLE_PLAY_API_URL: play.url,
      GOOGLE_PLAY_PACKAGE_NAME: BUNDLE,
      GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
      GOOGLE_RTDN_AUDIENCE: PUSH_AUDIENCE,
      GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL: PUSH_EMAIL,
      GOOGLE_RTDN_CERTS_URL: play.certsUrl,
    }),
    { RATE_LIMIT_STORE_NOTIFICATIONS_PER_MINUTE: '4' },
  );
  gateway = stack.gateway.url;
});
afterAll(async () => {
  await stack?.stop();
  await play?.close();
  pki?.cleanup();
});

const json = (token?: string) => ({
  'content-type': 'application/json',
  ...(token && { authorization: `Bearer ${token}` }),
});

async function call(path: string, init: RequestInit & { from?: string } = {}) {
  const headers = {
    ...(init.headers as Record<string, string>),
    'x-forwarded-for': init.from ?? '127.0.0.1',
  };
  const res = await fetch(`${gateway}${path}`, { ...init, headers });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : undefined;
  return { status: res.status, body };
}

/** A learner signed up through the gateway: their access token. */
async function learner(): Promise<string> {
  const name = uniqueName('store')
    .replace(/[^a-z0-9]/gi, '')
    .slice(-20);
  const res = await call('/api/v1/auth/register', {
    method: 'POST',
    headers: json(),
    body: JSON.stringify({ email: `${name}@example.com`, password: 'Secret123', username: name.slice(-18) }),
  });
  expect(res.status).toBe(201);
  return res.body.data.accessToken as string;
}

const hasPremium = async (token: string) =>
  (await call('/api/v1/subscriptions/check-access/unlimited_dialogue', { headers: json(token) })).body.data
    .has_access as boolean;

describe('store server notifications through the gateway (no user token)', () => {
  it('When Apple reports a refund of a purchase, Then the gateway lets it through and the learner loses premium', async () => {
    const token = await learner();
    const original = `tx${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const now = Date.now();
    const transaction = storeKitTransaction({ bundleId: BUNDLE, original, start: now });
    const bought = await call('/api/v1/subscriptions/verify-receipt', {
      method: 'POST',
      headers: json(token),
      body: JSON.stringify({
        platform: 'ios',
        receipt_data: await pki.sign(transaction),
        transaction_id: original,
        product_id: PRODUCT,
      }),
    });
    expect(bought.status).toBe(201);
    expect(await hasPremium(token)).toBe(true);

    const refunded = {
      ...transaction,
      signedDate: Date.now(),
      revocationDate: Date.now(),
      revocationReason: 0,
    };
    const signedPayload = await pki.sign({
      notificationType: 'REFUND',
      notificationUUID: randomUUID(),
      version: '2.0',
      signedDate: Date.now(),
      data: {
        bundleId: BUNDLE,
        environment: 'Sandbox',
        signedTransactionInfo: await pki.sign(refunded),
        signedRenewalInfo: await pki.sign({
          originalTransactionId: original,
          autoRenewProductId: PRODUCT,
          productId: PRODUCT,
          autoRenewStatus: 0,
          signedDate: Date.now(),
          environment: 'Sandbox',
          recentSubscriptionStartDate: now,
          renewalDate: now + 30 * DAY,
        }),
        status: 1,
      },
    });
    // Apple's server: no Authorization header at all
    const notified = await call('/api/v1/subscriptions/notifications/apple', {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({ signedPayload }),
      from: '17.57.144.10',
    });
    expect(notified).toMatchObject({ status: 200, body: { success: true, data: { outcome: 'applied' } } });
    expect(await hasPremium(token)).toBe(false);
  });

  it('When a forged notification (an untrusted chain) comes the same way, Then the service refuses it with 400, not the edge', async () => {
    const signedPayload = await pki.sign(
      { notificationType: 'REFUND', notificationUUID: randomUUID(), version: '2.0', signedDate: Date.now() },
      'untrusted',
    );
    const res = await call('/api/v1/subscriptions/notifications/apple', {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({ signedPayload }),
      from: '198.51.100.77',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toMatch(/RECEIPT/);
  });

  it("When Google's Pub/Sub push reports a revocation with Google's own OIDC token, Then it reaches the service and the learner loses premium", async () => {
    const token = await learner();
    const purchaseToken = `tok-${randomUUID()}`;
    const now = Date.now();
    play.purchases.set(purchaseToken, {
      productId: SKU,
      subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
      latestOrderId: `GPA.${purchaseToken}`,
      startTime: new Date(now).toISOString(),
      expiryTime: new Date(now + 30 * DAY).toISOString(),
      autoRenew: true,
      freeTrial: false,
      acknowledged: false,
    });
    const bought = await call('/api/v1/subscriptions/verify-receipt', {
      method: 'POST',
      headers: json(token),
      body: JSON.stringify({
        platform: 'android',
        receipt_data: purchaseToken,
        transaction_id: purchaseToken,
        product_id: SKU,
      }),
    });
    expect(bought.status).toBe(201);
    expect(await hasPremium(token)).toBe(true);

    play.purchases.set(purchaseToken, {
      ...play.purchases.get(purchaseToken)!,
      subscriptionState: 'SUBSCRIPTION_STATE_EXPIRED',
      expiryTime: new Date(Date.now() - 1000).toISOString(),
      autoRenew: false,
    });
    const data = Buffer.from(
      JSON.stringify({
        version: '1.0',
        packageName: BUNDLE,
        eventTimeMillis: String(Date.now()),
        subscriptionNotification: {
          version: '1.0',
          notificationType: 12,
          purchaseToken,
          subscriptionId: SKU,
        },
      }),
    ).toString('base64');
    const pushed = await call('/api/v1/subscriptions/notifications/google', {
      method: 'POST',
      headers: {
        ...json(),
        authorization: `Bearer ${await play.pushToken({ aud: PUSH_AUDIENCE, email: PUSH_EMAIL })}`,
      },
      body: JSON.stringify({
        message: { data, messageId: randomUUID(), publishTime: new Date().toISOString() },
        subscription: 'projects/lingua/subscriptions/play-rtdn',
      }),
      from: '66.102.0.5',
    });
    expect(pushed).toMatchObject({ status: 200, body: { success: true, data: { outcome: 'applied' } } });
    await waitFor(async () => expect(await hasPremium(token)).toBe(false), { timeoutMs: 20_000 });
  });

  it('When one address floods the notification paths, Then the store budget answers 429 with Retry-After, and other senders still get through', async () => {
    const send = (from: string) =>
      call('/api/v1/subscriptions/notifications/apple', {
        method: 'POST',
        headers: json(),
        body: JSON.stringify({ signedPayload: 'not-a-jws' }),
        from,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await send('203.0.113.200')).status);
    // the first four reach the service (which refuses the garbage), the fifth is the edge's
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const limited = await fetch(`${gateway}/api/v1/subscriptions/notifications/apple`, {
      method: 'POST',
      headers: { ...json(), 'x-forwarded-for': '203.0.113.200' },
      body: '{}',
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect((await send('203.0.113.201')).status).toBe(400);
  });
});
