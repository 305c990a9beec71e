import { DAY, type Harness, startSubscriptions, tx, until } from './harness';
import { type PlayStandIn, startPlayStandIn } from './support/play-stand-in';

const PACKAGE = 'com.lingua.test';
const SKU = 'premium_monthly';
const SECRET = 'rtdn-shared-secret-for-tests';
const BASE = '/api/v1/subscriptions';
const PUSH_AUDIENCE = 'https://api.lingua.test/api/v1/subscriptions/notifications/google';
const PUSH_EMAIL = 'pubsub-push@lingua-test.iam.gserviceaccount.com';
// generous: the machine is shared and tests wait for events
jest.setTimeout(120_000);
let play: PlayStandIn;
let h: Harness;

beforeAll(async () => {
  play = await startPlayStandIn(PACKAGE);
  h = await startSubscriptions({
    SUBSCRIPTIONS_ANDROID_VERIFIER: 'google',
    GOOGLE_PLAY_API_URL: play.url,
    GOOGLE_PLAY_PACKAGE_NAME: PACKAGE,
    GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
    GOOGLE_RTDN_SHARED_SECRET: SECRET,
    GOOGLE_RTDN_AUDIENCE: PUSH_AUDIENCE,
    GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL: PUSH_EMAIL,
    GOOGLE_RTDN_CERTS_URL: play.certsUrl,
    STORE_TIMEOUT_MS: '1000',
  });
});
afterAll(async () => {
  await h?.stop();
  await play?.close();
});

function purchase(
  token: string,
  o: {
    days?: number;
    state?: string;
    order?: string;
    autoRenew?: boolean;
    trial?: boolean;
    acknowledged?: boolean;
    linked?: string;
  } = {},
) {
  const now = h.clock.now().getTime();
  play.purchases.set(token, {
    productId: SKU,
    subscriptionState: o.state ?? 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: o.order ?? `GPA.${token}`,
    startTime: new Date(now).toISOString(),
    expiryTime: new Date(now + (o.days ?? 30) * DAY).toISOString(),
    autoRenew: o.autoRenew ?? true,
    freeTrial: o.trial ?? false,
    // a new purchase waits for our acknowledgement; a later state of it keeps what Google recorded
    acknowledged: o.acknowledged ?? play.purchases.get(token)?.acknowledged ?? false,
    ...(o.linked && { linkedPurchaseToken: o.linked }),
  });
}

const acksOf = (token: string) => play.acknowledgements.filter((a) => a.token === token);
const subscriptionStored = (token: string) =>
  h.service.deps.mongo.connection
    .collection('subscriptions')
    .findOne({ storeKey: `google:${token}` })
    .then((doc) => doc !== null);

const verify = (user: { auth: Record<string, string> }, token: string) =>
  h.post(`${BASE}/verify-receipt`, { platform: 'android', receipt_data: token, product_id: SKU }, user.auth);

function rtdn(token: string, notification: Record<string, unknown>, messageId = tx(), secret = SECRET) {
  const data = Buffer.from(
    JSON.stringify({
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      ...notification,
    }),
  ).toString('base64');
  return h.post(`${BASE}/notifications/google?token=${encodeURIComponent(secret)}`, {
    message: { data, messageId, publishTime: new Date().toISOString() },
    subscription: 'projects/lingua/subscriptions/play-rtdn',
  });
}

describe('Google Play (Developer API and real-time developer notifications)', () => {
  it('When a purchase token is sent, Then the Play Developer API is asked with service-account credentials and the subscription activates', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    const user = h.user();
    const res = await verify(user, token);
    expect(res.status).toBe(201);
    expect(res.body.data.receipt_validation).toMatchObject({
      platform: 'android',
      original_transaction_id: token,
      auto_renew_status: true,
    });
    expect(play.calls.filter((c) => c.token === token)).toEqual([{ token, authorized: true }]);
    const id = res.body.data.subscription_created.subscription_id;
    await until(() => h.eventsFor(id).length === 1);
    expect(h.eventsFor(id)[0]!.data).toMatchObject({ platform: 'android', status: 'active' });
  });

  it('When Google does not know the token, Then 400 RECEIPT_INVALID', async () => {
    const res = await verify(h.user(), `unknown-${tx()}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RECEIPT_INVALID');
  });

  it('When the store times out or fails, Then 502 PLATFORM_VERIFICATION_ERROR and nothing is stored', async () => {
    const slowToken = `slow-${tx()}`;
    purchase(slowToken);
    play.slow.add(slowToken);
    const user = h.user();
    const slow = await verify(user, slowToken);
    expect(slow.status).toBe(502);
    expect(slow.body.error.code).toBe('PLATFORM_VERIFICATION_ERROR');
    const downToken = `down-${tx()}`;
    purchase(downToken);
    play.failing.add(downToken);
    const down = await verify(user, downToken);
    expect(down.status).toBe(502);
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.status).toBe('none');
  });

  it('When RTDN reports a renewal, Then the state is re-fetched and the period extended; a duplicate message is ignored', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    const user = h.user();
    const id = (await verify(user, token)).body.data.subscription_created.subscription_id;
    purchase(token, { days: 60, order: `GPA.${token}..1` });
    const messageId = tx();
    const res = await rtdn(
      token,
      {
        subscriptionNotification: {
          version: '1.0',
          notificationType: 2,
          purchaseToken: token,
          subscriptionId: SKU,
        },
      },
      messageId,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe('applied');
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.days_remaining).toBe(60);
    const again = await rtdn(
      token,
      { subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: token } },
      messageId,
    );
    expect(again.body.data.outcome).toBe('duplicate');
    await until(() => h.eventsFor(id).length === 2);
    expect(h.eventsFor(id).find((e) => e.event === 'subscription.updated')!.data).toMatchObject({
      change: 'renewed',
      status: 'active',
    });
  });

  it('When RTDN reports a revocation (refund), Then access ends at once', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    const user = h.user();
    const id = (await verify(user, token)).body.data.subscription_created.subscription_id;
    purchase(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', days: 0 });
    const res = await rtdn(token, {
      subscriptionNotification: { version: '1.0', notificationType: 12, purchaseToken: token },
    });
    expect(res.body.data.outcome).toBe('applied');
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      false,
    );
    await until(() => h.eventsFor(id).length === 2);
    expect(h.eventsFor(id).find((e) => e.event === 'subscription.updated')!.data).toMatchObject({
      change: 'refunded',
      status: 'cancelled',
      userRole: 'user',
    });
  });

  it('When the push is not authenticated or malformed, Then 401 / 400 and nothing is applied', async () => {
    const token = `tok-${tx()}`;
    const wrong = await rtdn(
      token,
      { subscriptionNotification: { notificationType: 2, purchaseToken: token } },
      tx(),
      'wrong-secret-wrong-secret',
    );
    expect(wrong.status).toBe(401);
    const none = await h.post(`${BASE}/notifications/google`, { message: { data: 'e30=', messageId: '1' } });
    expect(none.status).toBe(401);
    const bad = await h.post(`${BASE}/notifications/google?token=${SECRET}`, {
      message: { data: '!!notbase64json', messageId: tx() },
    });
    expect(bad.status).toBe(400);
    const test = await rtdn(token, { testNotification: { version: '1.0' } });
    expect(test.body.data.outcome).toBe('ignored');
  });

  it('When the push carries the Pub/Sub OIDC token, Then it is verified (signature, audience, signer) before applying', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    const user = h.user();
    await verify(user, token);
    const body = (messageId: string) => ({
      message: {
        data: Buffer.from(
          JSON.stringify({
            packageName: PACKAGE,
            subscriptionNotification: { notificationType: 2, purchaseToken: token },
          }),
        ).toString('base64'),
        messageId,
      },
    });
    const push = (jwt: string) =>
      h.post(`${BASE}/notifications/google`, body(tx()), { authorization: `Bearer ${jwt}` });
    const ok = await push(await play.pushToken({ aud: PUSH_AUDIENCE, email: PUSH_EMAIL }));
    expect(ok.status).toBe(200);
    expect(ok.body.data.outcome).toBe('applied');
    expect((await push(await play.pushToken({ aud: 'https://elsewhere', email: PUSH_EMAIL }))).status).toBe(
      401,
    );
    expect((await push(await play.pushToken({ aud: PUSH_AUDIENCE, email: 'someone@else.com' }))).status).toBe(
      401,
    );
    expect(
      (await push(await play.pushToken({ aud: PUSH_AUDIENCE, email: PUSH_EMAIL }, play.otherKey))).status,
    ).toBe(401);
  });
});

describe('Google Play acknowledgement (Google refunds purchases not acknowledged within 3 days)', () => {
  afterEach(() => {
    play.onAcknowledge = undefined;
  });

  it('When a new purchase is verified, Then it is acknowledged once, with service-account credentials, after the subscription was stored; sent again it is not acknowledged again', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    play.onAcknowledge = subscriptionStored;
    const user = h.user();
    const first = await verify(user, token);
    expect(first.status).toBe(201);
    expect(acksOf(token)).toEqual([
      { token, productId: SKU, authorized: true, succeeded: true, observed: true },
    ]);
    expect(play.purchases.get(token)!.acknowledged).toBe(true);
    const again = await verify(user, token);
    expect(again.status).toBe(200);
    expect(again.body.data.subscription_created.subscription_id).toBe(
      first.body.data.subscription_created.subscription_id,
    );
    expect(acksOf(token)).toHaveLength(1);
  });

  it('When the acknowledge call fails, Then the purchase is still granted and the next verification acknowledges it', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    play.failingAcknowledge.add(token);
    const user = h.user();
    const first = await verify(user, token);
    expect(first.status).toBe(201);
    expect(first.body.data.subscription_created.status).toBe('active');
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      true,
    );
    expect(acksOf(token).map((a) => a.succeeded)).toEqual([false]);
    expect(play.purchases.get(token)!.acknowledged).toBe(false);

    play.failingAcknowledge.delete(token);
    const again = await verify(user, token);
    expect(again.status).toBe(200);
    expect(acksOf(token).map((a) => [a.authorized, a.succeeded])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(play.purchases.get(token)!.acknowledged).toBe(true);
  });

  it('When the acknowledgement failed, Then a status check with check_renewal acknowledges it', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    play.failingAcknowledge.add(token);
    const user = h.user();
    expect((await verify(user, token)).status).toBe(201);
    play.failingAcknowledge.delete(token);
    const status = await h.get(`${BASE}/status?check_renewal=true`, user.auth);
    expect(status.status).toBe(200);
    expect(status.body.data.subscription_status).toMatchObject({ is_active: true, renewal_checked: true });
    expect(acksOf(token).map((a) => a.succeeded)).toEqual([false, true]);
  });

  it('When the payment is pending, Then nothing is acknowledged until RTDN reports it paid, which acknowledges it', async () => {
    const token = `tok-${tx()}`;
    purchase(token, { state: 'SUBSCRIPTION_STATE_PENDING' });
    const user = h.user();
    const res = await verify(user, token);
    expect(res.status).toBe(201);
    expect(res.body.data.subscription_created.status).toBe('pending');
    expect(acksOf(token)).toEqual([]);

    purchase(token, { state: 'SUBSCRIPTION_STATE_ACTIVE' });
    const paid = await rtdn(token, {
      subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token },
    });
    expect(paid.body.data.outcome).toBe('applied');
    expect(acksOf(token).map((a) => a.succeeded)).toEqual([true]);
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      true,
    );
  });

  it('When acknowledging fails while applying an RTDN, Then the push answers 502 so Pub/Sub redelivers it, and the redelivery acknowledges', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    play.failingAcknowledge.add(token);
    const user = h.user();
    expect((await verify(user, token)).status).toBe(201);
    const messageId = tx();
    const notification = {
      subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token },
    };
    const failed = await rtdn(token, notification, messageId);
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('PLATFORM_VERIFICATION_ERROR');
    play.failingAcknowledge.delete(token);
    const redelivered = await rtdn(token, notification, messageId);
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.data.outcome).toBe('applied');
    expect(acksOf(token).map((a) => a.succeeded)).toEqual([false, false, true]);
    expect(play.purchases.get(token)!.acknowledged).toBe(true);
  });

  it('When the acknowledge call is not signed by the service account, Then the stand-in refuses it like Google', async () => {
    const token = `tok-${tx()}`;
    purchase(token);
    const res = await fetch(
      `${play.url}androidpublisher/v3/applications/${PACKAGE}/purchases/subscriptions/${SKU}/tokens/${token}:acknowledge`,
      { method: 'POST', headers: { authorization: 'Bearer not-a-jwt' } },
    );
    expect(res.status).toBe(401);
    expect(acksOf(token)).toEqual([
      { token, productId: SKU, authorized: false, succeeded: false, observed: undefined },
    ]);
    expect(play.purchases.get(token)!.acknowledged).toBe(false);
  });
});

describe('Google Play plan changes (a new purchase token linked to the old one)', () => {
  const stored = (token: string) =>
    h.service.deps.mongo.connection.collection('subscriptions').findOne({ storeKey: `google:${token}` });
  const notify = (token: string, notificationType: number, messageId = tx()) =>
    rtdn(
      token,
      { subscriptionNotification: { version: '1.0', notificationType, purchaseToken: token } },
      messageId,
    );
  const userEvents = (userId: string) =>
    h.events.filter((e) => (e.data as { userId?: string }).userId === userId);
  /** Google's side of an immediate plan change: a new token linked to the old one, which stops. */
  function changePlan(oldToken: string, o: { state?: string } = {}) {
    const newToken = `up-${tx()}`;
    purchase(newToken, { linked: oldToken, days: 30, ...(o.state && { state: o.state }) });
    purchase(oldToken, { state: 'SUBSCRIPTION_STATE_EXPIRED', days: 0, autoRenew: false });
    return newToken;
  }
  async function subscribed() {
    const user = h.user();
    const oldToken = `tok-${tx()}`;
    purchase(oldToken, { days: 10 });
    const res = await verify(user, oldToken);
    expect(res.status).toBe(201);
    return { user, oldToken, oldId: res.body.data.subscription_created.subscription_id as string };
  }

  it('When the app sends the upgraded purchase, Then it takes over: one active subscription, the old one ended with a replaced event, access unchanged; replays change nothing', async () => {
    const { user, oldToken, oldId } = await subscribed();
    const newToken = changePlan(oldToken);
    const res = await verify(user, newToken);
    expect(res.status).toBe(201);
    const newId = res.body.data.subscription_created.subscription_id;
    expect(res.body.data.subscription_created).toMatchObject({ user_id: user.id, status: 'active' });
    expect(acksOf(newToken).map((a) => a.succeeded)).toEqual([true]);

    const status = (await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status;
    expect(status).toMatchObject({
      subscription_id: newId,
      is_active: true,
      status: 'active',
      days_remaining: 30,
    });
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      true,
    );
    const history = (await h.get(`${BASE}/history`, user.auth)).body.data;
    expect(
      history.subscription_history.map((r: { subscription_id: string; status: string }) => [
        r.subscription_id,
        r.status,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [newId, 'active'],
        [oldId, 'expired'],
      ]),
    );
    const old = await stored(oldToken);
    expect(old).toMatchObject({ status: 'expired', replacedBy: newId, autoRenewal: false, userId: user.id });
    expect(old!.expiresAt.getTime()).toBeLessThanOrEqual(h.clock.now().getTime());

    await until(() => h.eventsFor(oldId).length === 2 && h.eventsFor(newId).length === 1);
    expect(h.eventsFor(oldId)[1]).toMatchObject({
      event: 'subscription.updated',
      data: {
        change: 'replaced',
        status: 'expired',
        previousStatus: 'active',
        userId: user.id,
        userRole: 'subscriber',
        userSubscriptionStatus: 'active',
      },
    });
    expect(h.eventsFor(newId)[0]).toMatchObject({
      event: 'subscription.created',
      data: { userId: user.id, status: 'active', userRole: 'subscriber' },
    });
    // identity never hears that the user lost premium in between
    expect(userEvents(user.id).every((e) => (e.data as { userRole: string }).userRole === 'subscriber')).toBe(
      true,
    );

    // replays: the app again, Google's notifications about both tokens, one of them redelivered
    const versions = [(await stored(oldToken))!._v, (await stored(newToken))!._v];
    const messageId = tx();
    expect((await verify(user, newToken)).body.data.subscription_created.subscription_id).toBe(newId);
    expect((await notify(newToken, 4, messageId)).body.data.outcome).toBe('applied');
    expect((await notify(newToken, 4, messageId)).body.data.outcome).toBe('duplicate');
    // news about the old token (here: still paid up, renewal off) no longer applies to its record
    purchase(oldToken, { days: 10, autoRenew: false });
    expect((await notify(oldToken, 3)).body.data.outcome).toBe('applied');
    expect([(await stored(oldToken))!._v, (await stored(newToken))!._v]).toEqual(versions);
    await h.eventsSettled(); // everything staged so far published, and a later marker recorded
    expect([h.eventsFor(oldId).length, h.eventsFor(newId).length]).toEqual([2, 1]);
  });

  it("When Google notifies the upgrade before the app sends it, Then the new subscription is recorded for the old one's owner and the app's request answers it", async () => {
    const { user, oldToken, oldId } = await subscribed();
    const newToken = changePlan(oldToken);
    const res = await notify(newToken, 4);
    expect(res.body.data.outcome).toBe('applied');
    const created = await stored(newToken);
    expect(created).toMatchObject({ userId: user.id, status: 'active' });
    expect(await stored(oldToken)).toMatchObject({ status: 'expired', replacedBy: created!._id });
    expect(acksOf(newToken).map((a) => a.succeeded)).toEqual([true]);
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.subscription_id).toBe(
      created!._id,
    );

    const app = await verify(user, newToken);
    expect(app.status).toBe(200);
    expect(app.body.data.subscription_created.subscription_id).toBe(created!._id);
    await until(() => h.eventsFor(oldId).length === 2 && h.eventsFor(created!._id).length === 1);
  });

  it('When the app and Google deliver the upgrade concurrently and twice, Then one subscription is created and the old one is replaced once', async () => {
    const { user, oldToken, oldId } = await subscribed();
    const newToken = changePlan(oldToken);
    const replies = await Promise.all([
      verify(user, newToken),
      notify(newToken, 4),
      verify(user, newToken),
      notify(newToken, 4),
    ]);
    // 201 for the request that inserted it (none when a notification won), 200 for the others
    // (error codes shown on failure: a store call timing out on a loaded machine is a 502, not a race)
    const outcomes = replies.map((r) => `${r.status} ${r.body.error?.code ?? ''}`.trim());
    expect(outcomes.filter((o) => o !== '200' && o !== '201')).toEqual([]);
    expect(outcomes.filter((o) => o === '201').length).toBeLessThanOrEqual(1);
    const [app1, , app2] = replies;
    expect(app1!.body.data.subscription_created.subscription_id).toBe(
      app2!.body.data.subscription_created.subscription_id,
    );
    const all = await h.service.deps.mongo.connection
      .collection('subscriptions')
      .find({ userId: user.id })
      .toArray();
    expect(all.map((d) => [d.storeKey, d.status]).sort()).toEqual(
      [
        [`google:${newToken}`, 'active'],
        [`google:${oldToken}`, 'expired'],
      ].sort(),
    );
    const newId = all.find((d) => d.storeKey === `google:${newToken}`)!._id;
    await until(() => h.eventsFor(oldId).length >= 2 && h.eventsFor(newId).length >= 1);
    await h.eventsSettled(); // a duplicate staged by a racing writer would be recorded before the marker
    expect(h.eventsFor(oldId).map((e) => (e.data as { change?: string }).change ?? e.event)).toEqual([
      'subscription.created',
      'replaced',
    ]);
    expect(h.eventsFor(newId).map((e) => e.event)).toEqual(['subscription.created']);
  });

  it('When the upgrade payment is pending, Then the old subscription keeps access until Google reports the new one paid', async () => {
    const { user, oldToken, oldId } = await subscribed();
    const newToken = `up-${tx()}`;
    purchase(newToken, { linked: oldToken, state: 'SUBSCRIPTION_STATE_PENDING', days: 5 });
    expect((await verify(user, newToken)).body.data.subscription_created.status).toBe('pending');
    const untouched = await stored(oldToken);
    expect(untouched).toMatchObject({ status: 'active' });
    expect(untouched!.replacedBy).toBeUndefined();
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      true,
    );

    purchase(newToken, { linked: oldToken, days: 30 });
    purchase(oldToken, { state: 'SUBSCRIPTION_STATE_EXPIRED', days: 0, autoRenew: false });
    expect((await notify(newToken, 4)).body.data.outcome).toBe('applied');
    const paid = await stored(newToken);
    expect(paid).toMatchObject({ status: 'active' });
    expect(await stored(oldToken)).toMatchObject({ status: 'expired', replacedBy: paid!._id });
    await until(() => h.eventsFor(oldId).length === 2);
    expect((await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth)).body.data.has_access).toBe(
      true,
    );
  });

  it('When another account sends the upgraded purchase, Then 409 and nothing changes', async () => {
    const { oldToken } = await subscribed();
    const newToken = changePlan(oldToken);
    const res = await verify(h.user(), newToken);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
    expect(await stored(newToken)).toBeNull();
    expect(await stored(oldToken)).toMatchObject({ status: 'active' });
  });
});
