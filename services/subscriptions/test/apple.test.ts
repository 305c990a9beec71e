import { randomUUID } from 'node:crypto';
import { type ApplePki, makeApplePki } from './support/apple-pki';
import { storeKitTransaction } from './support/storekit.fixture';
import { DAY, type Harness, PRODUCT, renewalInfo, startSubscriptions, tx, until } from './harness';

const BUNDLE = 'com.lingua.test';
const BASE = '/api/v1/subscriptions';
let pki: ApplePki;
// generous: the machine is shared and tests wait for events and the sweep
jest.setTimeout(240_000);
let h: Harness;

beforeAll(async () => {
  pki = makeApplePki();
  h = await startSubscriptions({
    SUBSCRIPTIONS_IOS_VERIFIER: 'apple',
    APPLE_ROOT_CERTS: pki.rootPemFile,
    APPLE_BUNDLE_ID: BUNDLE,
  });
});
afterAll(async () => {
  await h?.stop();
  pki?.cleanup();
});

/** A StoreKit 2 transaction of this app, starting at the test clock unless told otherwise. */
function transaction(
  o: Omit<Parameters<typeof storeKitTransaction>[0], 'bundleId' | 'start'> & {
    bundleId?: string;
    start?: number;
  },
) {
  return storeKitTransaction({
    ...o,
    bundleId: o.bundleId ?? BUNDLE,
    start: o.start ?? h.clock.now().getTime(),
  });
}

async function notify(
  type: string,
  tx: Record<string, unknown>,
  o: { uuid?: string; autoRenew?: boolean; chain?: 'trusted' | 'untrusted' } = {},
) {
  const signedPayload = await pki.sign(
    {
      notificationType: type,
      notificationUUID: o.uuid ?? randomUUID(),
      version: '2.0',
      signedDate: Date.now(),
      data: {
        bundleId: BUNDLE,
        environment: 'Sandbox',
        signedTransactionInfo: await pki.sign(tx, o.chain),
        signedRenewalInfo: await pki.sign(
          renewalInfo(String(tx.originalTransactionId), o.autoRenew ?? true),
          o.chain,
        ),
        status: 1,
      },
    },
    o.chain,
  );
  return h.post(`${BASE}/notifications/apple`, { signedPayload });
}

async function verify(
  user: { auth: Record<string, string> },
  payload: Record<string, unknown>,
  chain: 'trusted' | 'untrusted' = 'trusted',
) {
  return h.post(
    `${BASE}/verify-receipt`,
    {
      platform: 'ios',
      receipt_data: await pki.sign(payload, chain),
      transaction_id: String(payload.transactionId),
      product_id: PRODUCT,
    },
    user.auth,
  );
}

describe('App Store (signed transactions and notifications V2)', () => {
  it('When a signed StoreKit 2 transaction is sent, Then it is verified against the configured root and activates the subscription', async () => {
    const user = h.user();
    const original = tx();
    const res = await verify(user, transaction({ original }));
    expect(res.status).toBe(201);
    expect(res.body.data.receipt_validation).toMatchObject({
      is_valid: true,
      platform: 'ios',
      original_transaction_id: original,
    });
    expect(res.body.data.subscription_details.price_paid).toEqual({
      amount: 999,
      currency: 'USD',
      was_discounted: false,
    });
    const id = res.body.data.subscription_created.subscription_id;
    await until(() => h.eventsFor(id).length === 1);
    expect(h.eventsFor(id)[0]!.data).toMatchObject({ platform: 'ios', userRole: 'subscriber' });
  });

  it('When the transaction is for another app, from Xcode, or signed by an untrusted chain, Then 400 and nothing is stored', async () => {
    const user = h.user();
    const otherApp = await verify(user, transaction({ original: tx(), bundleId: 'com.evil.app' }));
    expect(otherApp.status).toBe(400);
    expect(otherApp.body.error.code).toBe('RECEIPT_INVALID');
    const xcode = await verify(user, transaction({ original: tx(), environment: 'Xcode' }));
    expect(xcode.status).toBe(400);
    expect(xcode.body.error.code).toBe('RECEIPT_INVALID');
    const forged = await verify(user, transaction({ original: tx() }), 'untrusted');
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('RECEIPT_VERIFICATION_FAILED');
    const tampered = (await pki.sign(transaction({ original: tx() }))).replace(
      /\.[^.]+\./,
      `.${Buffer.from(JSON.stringify(transaction({ original: tx() }))).toString('base64url')}.`,
    );
    const res = await h.post(
      `${BASE}/verify-receipt`,
      { platform: 'ios', receipt_data: tampered, product_id: PRODUCT },
      user.auth,
    );
    expect(res.status).toBe(400);
    expect(['RECEIPT_VERIFICATION_FAILED', 'RECEIPT_INVALID']).toContain(res.body.error.code);
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.status).toBe('none');
  });

  it('When a trial renews, auto-renew is turned off and the period passes, Then trial → active → cancelled → expired', async () => {
    const start = h.clock.now().getTime();
    const user = h.user();
    const original = tx();
    const trial = await verify(user, transaction({ original, trial: true, days: 7 }));
    expect(trial.status).toBe(201);
    expect(trial.body.data.subscription_details.is_trial_period).toBe(true);
    const id = trial.body.data.subscription_created.subscription_id;

    try {
      // Apple renews just before the trial ends; at the very end the expiry sweep (every 100 ms here)
      // would expire the trial first and the renewal would then revive it, an extra event
      h.clock.advance(7 * DAY - 60_000);
      const renewal = transaction({ original, id: `${original}-2`, start: start + 7 * DAY, days: 30 });
      const renewed = await notify('DID_RENEW', renewal);
      expect(renewed.status).toBe(200);
      expect(renewed.body.data.outcome).toBe('applied');
      h.clock.advance(60_000);
      let status = (await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status;
      expect(status).toMatchObject({ status: 'active', is_active: true, days_remaining: 30 });
      expect((await h.get(`${BASE}/history`, user.auth)).body.data.summary.total_amount_paid).toBe(999);

      const off = await notify('DID_CHANGE_RENEWAL_STATUS', renewal, { autoRenew: false });
      expect(off.body.data.outcome).toBe('applied');
      status = (await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status;
      expect(status).toMatchObject({ status: 'cancelled', is_active: true, auto_renewal: false });

      h.clock.advance(31 * DAY);
      await until(
        async () =>
          (await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.status === 'expired',
      );
      await until(() => h.eventsFor(id).length === 4);
      // the recorder may see them in any order (consumer concurrency): compare as a set
      const seen = h
        .eventsFor(id)
        .map((e) => `${e.event} ${(e.data as { change?: string }).change ?? '-'} ${e.data.status}`);
      expect(seen.sort()).toEqual(
        [
          'subscription.created - active',
          'subscription.updated renewed active',
          'subscription.updated apple_did_change_renewal_status cancelled',
          'subscription.updated expired expired',
        ].sort(),
      );
      const byChange = (change: string | undefined) =>
        h.eventsFor(id).find((e) => (e.data as { change?: string }).change === change)!;
      expect(byChange(undefined).data).toMatchObject({
        isTrialPeriod: true,
        userSubscriptionStatus: 'trial',
      });
      expect(byChange('renewed').data).toMatchObject({
        isTrialPeriod: false,
        userSubscriptionStatus: 'active',
      });
    } finally {
      h.clock.advance(start - h.clock.now().getTime());
    }
  });

  it('When Apple notifies a refund, Then access ends, and a replay of the same notification is ignored', async () => {
    const user = h.user();
    const original = tx();
    const res = await verify(user, transaction({ original }));
    const id = res.body.data.subscription_created.subscription_id;
    const uuid = randomUUID();
    const refunded = transaction({ original, revoked: h.clock.now().getTime() });
    const first = await notify('REFUND', refunded, { uuid });
    expect(first.body.data.outcome).toBe('applied');
    const replay = await notify('REFUND', refunded, { uuid });
    expect(replay.status).toBe(200);
    expect(replay.body.data.outcome).toBe('duplicate');
    const check = await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth);
    expect(check.body.data.has_access).toBe(false);
    await until(() => h.eventsFor(id).length === 2);
    expect(h.eventsFor(id).find((e) => e.event === 'subscription.updated')!.data).toMatchObject({
      change: 'refunded',
      status: 'cancelled',
      userRole: 'user',
    });
    // nothing more arrives for the replay: its writes are published and a later marker is recorded
    await h.eventsSettled();
    expect(h.eventsFor(id)).toHaveLength(2);
  });

  it('When a notification is not signed by the trusted chain, Then 400 and the subscription is unchanged', async () => {
    const user = h.user();
    const original = tx();
    await verify(user, transaction({ original }));
    const forged = await notify('REFUND', transaction({ original, revoked: h.clock.now().getTime() }), {
      chain: 'untrusted',
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('RECEIPT_VERIFICATION_FAILED');
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.is_active).toBe(true);
    const junk = await h.post(`${BASE}/notifications/apple`, { signedPayload: 'not.a.jws' });
    expect(junk.status).toBe(400);
    const missing = await h.post(`${BASE}/notifications/apple`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('When a notification concerns a purchase never verified here, Then it is acknowledged as unknown', async () => {
    const res = await notify('DID_RENEW', transaction({ original: tx() }));
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe('unknown_subscription');
  });
});

describe('App Store Server API not configured (no APPLE_IAP_* key)', () => {
  it('When the status is asked with check_renewal, Then the stored state is answered with renewal_checked false', async () => {
    const user = h.user();
    const original = tx();
    expect((await verify(user, transaction({ original }))).status).toBe(201);
    const res = await h.get(`${BASE}/status?check_renewal=true`, user.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.subscription_status).toMatchObject({
      renewal_checked: false,
      is_active: true,
      status: 'active',
    });
  });
});
