import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { freePort, isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type ApplePki, makeApplePki } from '../../services/subscriptions/test/support/apple-pki';
import {
  STOREKIT_PRODUCT,
  storeKitTransaction,
} from '../../services/subscriptions/test/support/storekit.fixture';
import { type PlayStandIn, startPlayStandIn } from '../../services/subscriptions/test/support/play-stand-in';
import { clientAddress, gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// A store notification is claimed before it is applied. Google pushes again when its push deadline
// passes while the first delivery still waits on the Play Developer API, and a pod can die between
// the claim and the apply: neither may leave the store told "duplicate" for a change never applied.
// The subscriptions service runs here as its own process (the built dist), so it can be killed
// mid-apply the way a node kills a pod; the gateway in front of it is the real one.

const ROOT = path.resolve(__dirname, '../..');
const PACKAGE = 'com.lingua.lease';
const SKU = 'premium_monthly';
const DAY = 86_400_000;
const PUSH_AUDIENCE = 'https://api.lingua.test/api/v1/subscriptions/notifications/google';
const PUSH_EMAIL = 'pubsub-push@lingua-test.iam.gserviceaccount.com';
/**
 * Short enough for a test to outwait, longer than one apply behind the 3 s slow stand-in and than a
 * restart of the killed process on a busy machine (the retry after it must still find the claim leased).
 */
const LEASE_MS = 20_000;
jest.setTimeout(180_000);

let play: PlayStandIn;
let pki: ApplePki;
let stack: InProcessStack;
let env: Record<string, string>;
let port: number;
let child: ChildProcess | undefined;

/** The subscriptions service as a process of its own on `port`, sharing the stack's database and stream. */
async function startSubscriptionsProcess() {
  const proc = spawn(process.execPath, [path.join(ROOT, 'services/subscriptions/dist/main.js')], {
    env: {
      ...process.env,
      ...env,
      SUBSCRIPTIONS_HTTP_PORT: String(port),
      STORE_NOTIFICATION_LEASE_MS: String(LEASE_MS),
    },
    stdio: 'ignore',
  });
  child = proc;
  await waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200), {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

/** SIGKILL, as the kernel or a node failure ends a pod: no shutdown hook, no release. */
async function killSubscriptionsProcess() {
  const proc = child;
  child = undefined;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });
}

beforeAll(async () => {
  play = await startPlayStandIn(PACKAGE);
  pki = makeApplePki();
  port = await freePort();
  env = isolatedServiceEnv({
    SUBSCRIPTIONS_IOS_VERIFIER: 'apple',
    APPLE_ROOT_CERTS: pki.rootPemFile,
    APPLE_BUNDLE_ID: PACKAGE,
    SUBSCRIPTIONS_ANDROID_VERIFIER: 'google',
    GOOGLE_PLAY_API_URL: play.url,
    GOOGLE_PLAY_PACKAGE_NAME: PACKAGE,
    GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
    GOOGLE_RTDN_AUDIENCE: PUSH_AUDIENCE,
    GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL: PUSH_EMAIL,
    GOOGLE_RTDN_CERTS_URL: play.certsUrl,
  });
  stack = await startInProcessStack(env, { SUBSCRIPTIONS_HTTP_URL: `http://127.0.0.1:${port}` });
  await startSubscriptionsProcess();
});
afterAll(async () => {
  await killSubscriptionsProcess();
  await stopAndDrop(stack);
  await play?.close();
  pki?.cleanup();
});

const gateway = gatewayCaller(() => stack.gateway.url);

/** A learner who bought the monthly plan on Android (the Play stand-in knows the purchase token). */
async function androidSubscriber() {
  const registered = await gateway('POST', '/api/v1/auth/register', { body: newCredentials('lease') });
  expect(registered.status).toBe(201);
  const token = registered.body.data.accessToken as string;
  const purchaseToken = `tok-${randomUUID()}`;
  const now = Date.now();
  play.purchases.set(purchaseToken, {
    productId: SKU,
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: `GPA.${purchaseToken}`,
    startTime: new Date(now).toISOString(),
    expiryTime: new Date(now + 30 * DAY).toISOString(),
    autoRenew: true,
    acknowledged: false,
  });
  const bought = await gateway('POST', '/api/v1/subscriptions/verify-receipt', {
    token,
    body: {
      platform: 'android',
      receipt_data: purchaseToken,
      transaction_id: purchaseToken,
      product_id: SKU,
    },
  });
  expect(bought.status).toBe(201);
  expect(await hasPremium(token)).toBe(true);
  return { token, purchaseToken };
}

const hasPremium = async (token: string) => {
  const res = await gateway('GET', '/api/v1/subscriptions/check-access/unlimited_dialogue', { token });
  expect(res.status).toBe(200);
  return res.body.data.has_access as boolean;
};

/** Google revokes the purchase (refund): what the Play Developer API answers from now on. */
function revokeInPlay(purchaseToken: string) {
  play.purchases.set(purchaseToken, {
    ...play.purchases.get(purchaseToken)!,
    subscriptionState: 'SUBSCRIPTION_STATE_EXPIRED',
    expiryTime: new Date(Date.now() - 1000).toISOString(),
    autoRenew: false,
  });
}

/** One Pub/Sub push delivery of the revocation notification `messageId`, as Google sends it. */
async function push(messageId: string, purchaseToken: string) {
  const data = Buffer.from(
    JSON.stringify({
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      subscriptionNotification: { version: '1.0', notificationType: 12, purchaseToken, subscriptionId: SKU },
    }),
  ).toString('base64');
  return gateway('POST', '/api/v1/subscriptions/notifications/google', {
    headers: { authorization: `Bearer ${await play.pushToken({ aud: PUSH_AUDIENCE, email: PUSH_EMAIL })}` },
    body: {
      message: { data, messageId, publishTime: new Date().toISOString() },
      subscription: 'projects/lingua/subscriptions/play-rtdn',
    },
    from: clientAddress(),
  });
}

const playCallsFor = (purchaseToken: string) => play.calls.filter((c) => c.token === purchaseToken).length;

/** One App Store Server Notification V2 delivery (REFUND of `original`), signed like Apple's. */
async function appleRefund(notificationUUID: string, original: string, start: number) {
  const refunded = {
    ...storeKitTransaction({ bundleId: PACKAGE, original, start }),
    revocationDate: Date.now(),
  };
  const signedPayload = await pki.sign({
    notificationType: 'REFUND',
    notificationUUID,
    version: '2.0',
    signedDate: Date.now(),
    data: {
      bundleId: PACKAGE,
      environment: 'Sandbox',
      signedTransactionInfo: await pki.sign({ ...refunded, revocationReason: 0 }),
      status: 1,
    },
  });
  return gateway('POST', '/api/v1/subscriptions/notifications/apple', {
    body: { signedPayload },
    from: clientAddress(),
  });
}

describe('a store notification claimed but not yet applied (lease)', () => {
  it('When Pub/Sub redelivers while the first delivery still waits on the Play API, Then the retry gets 409 with Retry-After (not 200 duplicate), and once the first is done a retry gets 200 and the refund was applied once', async () => {
    const { token, purchaseToken } = await androidSubscriber();
    revokeInPlay(purchaseToken);
    play.slow.add(purchaseToken);
    const before = playCallsFor(purchaseToken);
    const messageId = randomUUID();

    const first = push(messageId, purchaseToken);
    // the first delivery is inside its apply: its Play API call has arrived and is being held
    await waitFor(() => expect(playCallsFor(purchaseToken)).toBe(before + 1), { timeoutMs: 30_000 });
    const retry = await push(messageId, purchaseToken);
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
    const retryAfter = Number(retry.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(LEASE_MS / 1000);

    expect(await first).toMatchObject({ status: 200, body: { data: { outcome: 'applied' } } });
    const later = await push(messageId, purchaseToken);
    expect(later).toMatchObject({ status: 200, body: { data: { outcome: 'duplicate' } } });
    // applied once: only the first delivery asked the store
    expect(playCallsFor(purchaseToken)).toBe(before + 1);
    await waitFor(async () => expect(await hasPremium(token)).toBe(false), { timeoutMs: 20_000 });
    play.slow.delete(purchaseToken);
  });

  it('When the pod applying a refund is killed after its claim, Then the store retry is 409 while the dead claim is leased, and after the lease ends a retry applies the refund', async () => {
    const { token, purchaseToken } = await androidSubscriber();
    revokeInPlay(purchaseToken);
    play.slow.add(purchaseToken);
    const before = playCallsFor(purchaseToken);
    const messageId = randomUUID();

    const first = push(messageId, purchaseToken);
    await waitFor(() => expect(playCallsFor(purchaseToken)).toBe(before + 1), { timeoutMs: 30_000 });
    await killSubscriptionsProcess();
    // the store sees the delivery fail (the gateway answers for the dead service) and will retry
    expect((await first).status).toBeGreaterThanOrEqual(500);
    play.slow.delete(purchaseToken);
    await startSubscriptionsProcess();

    // the claim the dead pod left is still leased: not "duplicate", a retry-later
    const early = await push(messageId, purchaseToken);
    expect(early.status).toBe(409);
    expect(await hasPremium(token)).toBe(true);

    // the store keeps retrying; once the lease has ended one delivery takes the claim over and applies
    const applied = await waitFor(
      async () => {
        const res = await push(messageId, purchaseToken);
        expect(res.status).toBe(200);
        return res;
      },
      { timeoutMs: LEASE_MS + 30_000, intervalMs: 500 },
    );
    expect(applied.body.data.outcome).toBe('applied');
    await waitFor(async () => expect(await hasPremium(token)).toBe(false), { timeoutMs: 20_000 });
  });

  it("When Apple retries a refund whose claim a crashed pod left behind, Then it is 409 while that claim's lease runs, and the refund is applied by the first retry after it", async () => {
    const registered = await gateway('POST', '/api/v1/auth/register', { body: newCredentials('lease') });
    const token = registered.body.data.accessToken as string;
    const original = `tx${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const start = Date.now();
    const bought = await gateway('POST', '/api/v1/subscriptions/verify-receipt', {
      token,
      body: {
        platform: 'ios',
        receipt_data: await pki.sign(storeKitTransaction({ bundleId: PACKAGE, original, start })),
        transaction_id: original,
        product_id: STOREKIT_PRODUCT,
      },
    });
    expect(bought.status).toBe(201);
    const notificationUUID = randomUUID();
    // what a pod killed between its claim and its apply leaves: the claim, leased for a few seconds more
    const now = Date.now();
    await stack.services.subscriptions.deps.mongo.connection
      .collection<{ _id: string }>('store_notifications')
      .insertOne({
        _id: `apple:${notificationUUID}`,
        state: 'processing',
        receivedAt: new Date(now),
        owner: 'the-crashed-pod',
        leaseUntil: new Date(now + 5_000),
        attempts: 1,
        expireAt: new Date(now + 86_400_000),
      });

    const early = await appleRefund(notificationUUID, original, start);
    expect(early.status).toBe(409);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await hasPremium(token)).toBe(true);
    const applied = await waitFor(
      async () => {
        const res = await appleRefund(notificationUUID, original, start);
        expect(res.status).toBe(200);
        return res;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(applied.body.data.outcome).toBe('applied');
    expect(await hasPremium(token)).toBe(false);
  });
});
