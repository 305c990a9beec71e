import { randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { DAY, type Harness, PRODUCT, sandboxReceipt, startSubscriptions, tx, until } from './harness';

// generous: the machine is shared and tests wait for events and the sweep
jest.setTimeout(120_000);
let h: Harness;
beforeAll(async () => {
  h = await startSubscriptions();
});
afterAll(async () => {
  await h?.stop();
});

const BASE = '/api/v1/subscriptions';

async function subscribe(user: { auth: Record<string, string> }, scenario = 'valid') {
  const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt(scenario), user.auth);
  expect(res.status).toBe(201);
  return res.body.data.subscription_created.subscription_id as string;
}

describe('plans and offers', () => {
  it('When a guest asks for plans, Then the configured plan comes with trial eligibility and triggers', async () => {
    const res = await h.get(`${BASE}/plans?device_id=${randomUUID()}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const plan = res.body.data.available_plans[0];
    expect(plan).toMatchObject({
      plan_id: 'premium_monthly',
      product_id: PRODUCT,
      billing_cycle: 'monthly',
      pricing: { regular_price: { amount: 999, currency: 'USD' } },
      trial_period: { duration_days: 7, available: true },
      platform_config: { android: { billing_key: '<PUBLIC_BILLING_KEY>' } },
    });
    expect(plan.features.map((f: { feature_id: string }) => f.feature_id)).toEqual([
      'unlimited_dialogue',
      'advanced_scenarios',
      'detailed_analysis',
      'priority_support',
    ]);
    expect(res.body.data.current_user_status).toMatchObject({
      is_subscribed: false,
      user_type: 'guest',
      eligible_for_trial: true,
    });
    expect(res.body.data.current_user_status.subscription_triggers.length).toBeGreaterThan(0);
    expect(res.body.meta.request_id).toBeDefined();
  });

  it('When a user who already subscribed asks for offers, Then new-user offers are ineligible with a reason', async () => {
    const user = h.user();
    const fresh = await h.get(`${BASE}/offers?region=US`, user.auth);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.user_eligibility.eligible_offers).toEqual(['free_trial_7d', 'launch_50']);
    expect(fresh.body.data.active_offers.map((o: { offer_id: string }) => o.offer_id)).not.toContain(
      'comeback_30',
    );
    await subscribe(user);
    const after = await h.get(`${BASE}/offers?region=BR`, user.auth);
    expect(after.body.data.user_eligibility.eligible_offers).toEqual([]);
    expect(after.body.data.user_eligibility.ineligible_offers).toEqual([
      { offer_id: 'free_trial_7d', reason: 'new_users_only' },
      { offer_id: 'launch_50', reason: 'new_users_only' },
    ]);
    const plans = await h.get(`${BASE}/plans`, user.auth);
    expect(plans.body.data.current_user_status).toMatchObject({
      is_subscribed: true,
      user_type: 'registered',
      eligible_for_trial: false,
    });
  });

  it('When offers are asked for an unsupported region, Then the geographic restriction is the reason', async () => {
    const res = await h.get(`${BASE}/offers?region=BR&device_id=${randomUUID()}`);
    expect(res.body.data.user_eligibility.ineligible_offers).toEqual([
      { offer_id: 'launch_50', reason: 'region_not_eligible' },
    ]);
  });
});

describe('verify-receipt', () => {
  it('When a registered user sends a valid sandbox receipt, Then the subscription is active, features unlock and subscription.created is emitted', async () => {
    const user = h.user();
    const body = sandboxReceipt('valid');
    const res = await h.post(`${BASE}/verify-receipt`, body, user.auth);
    expect(res.status).toBe(201);
    expect(res.body.message).toBeDefined();
    const d = res.body.data;
    expect(d.subscription_created).toMatchObject({
      plan_id: 'premium_monthly',
      user_id: user.id,
      status: 'active',
    });
    expect(d.receipt_validation).toMatchObject({
      is_valid: true,
      platform: 'ios',
      original_transaction_id: body.transaction_id,
      product_id: PRODUCT,
      auto_renew_status: true,
    });
    expect(d.subscription_details).toMatchObject({
      auto_renewal: true,
      billing_cycle: 'monthly',
      is_trial_period: false,
    });
    expect(d.subscription_details.price_paid).toEqual({
      amount: 999,
      currency: 'USD',
      was_discounted: false,
    });
    expect(new Date(d.subscription_details.expires_at).getTime() - h.clock.now().getTime()).toBe(30 * DAY);
    expect(d.unlocked_features).toContain('unlimited_dialogue');
    const id = d.subscription_created.subscription_id;
    await until(() => h.eventsFor(id).length === 1);
    expect(h.eventsFor(id)[0]).toMatchObject({
      event: 'subscription.created',
      data: {
        userId: user.id,
        status: 'active',
        userRole: 'subscriber',
        userSubscriptionStatus: 'active',
        platform: 'sandbox',
      },
    });
  });

  it('When the same transaction is verified twice, Then one subscription exists and the second answer is 200', async () => {
    const user = h.user();
    const body = sandboxReceipt('valid');
    const first = await h.post(`${BASE}/verify-receipt`, body, user.auth);
    const [second, third] = await Promise.all([
      h.post(`${BASE}/verify-receipt`, body, user.auth),
      h.post(`${BASE}/verify-receipt`, body, user.auth),
    ]);
    expect(first.status).toBe(201);
    expect([second.status, third.status]).toEqual([200, 200]);
    expect(second.body.data.subscription_created.subscription_id).toBe(
      first.body.data.subscription_created.subscription_id,
    );
    const history = await h.get(`${BASE}/history`, user.auth);
    expect(history.body.data.summary.total_subscriptions).toBe(1);
  });

  it('When another account sends a purchase that is already linked, Then 409 SUBSCRIPTION_ALREADY_ACTIVE', async () => {
    const body = sandboxReceipt('valid');
    expect((await h.post(`${BASE}/verify-receipt`, body, h.user().auth)).status).toBe(201);
    const res = await h.post(`${BASE}/verify-receipt`, body, h.user().auth);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'SUBSCRIPTION_ALREADY_ACTIVE' },
    });
  });

  it('When a subscriber sends a different purchase, Then 409 SUBSCRIPTION_ALREADY_ACTIVE', async () => {
    const user = h.user();
    await subscribe(user);
    const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('valid'), user.auth);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
  });

  it.each([
    ['invalid', 400, 'RECEIPT_INVALID'],
    ['expired', 400, 'RECEIPT_INVALID'],
    ['refunded', 400, 'RECEIPT_INVALID'],
    ['failed', 400, 'RECEIPT_VERIFICATION_FAILED'],
    ['unavailable', 502, 'PLATFORM_VERIFICATION_ERROR'],
  ])('When the receipt scenario is %s, Then %i %s and nothing is stored', async (scenario, status, code) => {
    const user = h.user();
    const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt(scenario), user.auth);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect((await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.status).toBe('none');
  });

  it('When the product is unknown or the receipt garbage, Then 400 RECEIPT_INVALID', async () => {
    const user = h.user();
    expect(
      (
        await h.post(
          `${BASE}/verify-receipt`,
          { ...sandboxReceipt('valid'), product_id: 'com.other' },
          user.auth,
        )
      ).body.error.code,
    ).toBe('RECEIPT_INVALID');
    expect(
      (
        await h.post(
          `${BASE}/verify-receipt`,
          { ...sandboxReceipt('valid'), receipt_data: 'TUlJ' },
          user.auth,
        )
      ).body.error.code,
    ).toBe('RECEIPT_INVALID');
  });

  it.each([
    ['a missing platform', { receipt_data: 'x', product_id: PRODUCT }, 'platform'],
    ['a wrong type', { platform: 'ios', receipt_data: 42, product_id: PRODUCT }, 'receipt_data'],
    [
      'an operator object',
      { platform: 'ios', receipt_data: { $gt: '' }, product_id: PRODUCT },
      'receipt_data',
    ],
    [
      'a huge receipt',
      { platform: 'ios', receipt_data: 'a'.repeat(20_001), product_id: PRODUCT },
      'receipt_data',
    ],
    ['an unknown field', { platform: 'ios', receipt_data: 'x', product_id: PRODUCT, $where: '1' }, '_'],
  ])('When the body has %s, Then 400 VALIDATION_ERROR naming the field', async (_name, body, field) => {
    const res = await h.post(`${BASE}/verify-receipt`, body, h.user().auth);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.error.details)).toContain(field);
  });

  it('When the body is not JSON, Then 400 in the shared envelope', async () => {
    const res = await h.request('POST', `${BASE}/verify-receipt`, {
      raw: '{"platform":',
      headers: h.user().auth,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null });
  });

  it('When a guest sends a receipt without a device id, Then 400 VALIDATION_ERROR on device_id', async () => {
    const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('valid'));
    expect(res.status).toBe(400);
    expect(res.body.error.details.device_id).toBeDefined();
  });

  it('When the caller is invalid, Then 401 even on a guest-friendly route', async () => {
    const forged = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('valid'), {
      'x-lingua-assertion': 'v1.nope.nope',
    });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe('TOKEN_INVALID');
    // a client token without the gateway is no guest either
    const direct = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('valid'), {
      authorization: `Bearer ${h.user().token}`,
    });
    expect(direct.status).toBe(401);
    expect(direct.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('status and check-access', () => {
  it('When a free user asks for status, Then the free-tier permissions and usage are reported', async () => {
    const user = h.user();
    const res = await h.get(`${BASE}/status?include_features=true`, user.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.subscription_status).toMatchObject({
      is_active: false,
      status: 'none',
      days_remaining: 0,
    });
    expect(res.body.data.user_context).toMatchObject({ user_type: 'registered' });
    expect(res.body.data.access_permissions.dialogue_training).toMatchObject({
      has_access: true,
      access_type: 'limited',
    });
    expect(res.body.data.access_permissions.advanced_features).toEqual({
      detailed_analysis: false,
      progress_reports: false,
      priority_support: false,
      offline_content: false,
    });
    expect(res.body.data.usage_statistics).toMatchObject({ dialogues_this_month: 0, analysis_requests: 0 });
    expect(res.body.data.features.locked).toContain('unlimited_dialogue');
  });

  it('When a subscriber asks for status and checks a feature, Then access is unlimited', async () => {
    const user = h.user();
    const id = await subscribe(user);
    const res = await h.get(`${BASE}/status?check_renewal=true`, user.auth);
    expect(res.body.data.subscription_status).toMatchObject({
      is_active: true,
      subscription_id: id,
      plan_id: 'premium_monthly',
      status: 'active',
      days_remaining: 30,
      auto_renewal: true,
      billing_cycle: 'monthly',
    });
    expect(res.body.data.access_permissions.dialogue_training).toEqual({
      has_access: true,
      access_type: 'unlimited',
      restrictions: [],
    });
    const check = await h.get(`${BASE}/check-access/advanced_scenarios`, user.auth);
    expect(check.body.data).toMatchObject({
      feature_id: 'advanced_scenarios',
      has_access: true,
      access_reason: 'active_subscription',
      subscription_info: { required_plan: 'premium_monthly', current_status: 'active' },
      alternative_actions: [],
    });
  });

  it('When a free user checks a premium feature, Then no access with the reason and alternatives', async () => {
    const res = await h.get(`${BASE}/check-access/detailed_analysis`, h.user().auth);
    expect(res.body.data).toMatchObject({
      has_access: false,
      access_reason: 'subscription_required',
      subscription_info: {
        required_plan: 'premium_monthly',
        upgrade_url: '/api/v1/subscriptions/plans',
        current_status: 'none',
      },
    });
    expect(res.body.data.alternative_actions).toContain('start_free_trial');
    const free = await h.get(`${BASE}/check-access/spaced_repetition`, h.user().auth);
    expect(free.body.data).toMatchObject({ has_access: true, access_reason: 'free_feature' });
  });

  it('When the feature id is unknown or no token is sent, Then 400 / 401', async () => {
    const bad = await h.get(`${BASE}/check-access/teleportation`, h.user().auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.feature_id).toBeDefined();
    const anon = await h.get(`${BASE}/check-access/unlimited_dialogue`);
    expect(anon.status).toBe(401);
  });

  it('When a query flag is not a boolean, Then 400', async () => {
    const res = await h.get(`${BASE}/status?include_features=maybe`, h.user().auth);
    expect(res.status).toBe(400);
    expect(res.body.error.details.include_features).toBeDefined();
  });
});

describe('cancel and reactivate', () => {
  it('When a subscriber cancels at period end, Then access continues until the expiry with a retention offer', async () => {
    const user = h.user();
    const id = await subscribe(user);
    h.clock.advance(10 * DAY);
    const res = await h.post(
      `${BASE}/cancel`,
      { cancellation_reason: 'too_expensive', feedback: 'pricey', immediate_cancellation: false },
      user.auth,
    );
    h.clock.advance(-10 * DAY);
    expect(res.status).toBe(200);
    const status = await h.get(`${BASE}/status`, user.auth);
    expect(res.body.data.cancellation_processed).toEqual({
      subscription_id: id,
      cancellation_effective_date: status.body.data.subscription_status.expires_at,
      immediate_cancellation: false,
      remaining_access_days: 20,
    });
    expect(res.body.data.retention_offer).toMatchObject({
      offer_id: 'comeback_30',
      discount_percentage: 30,
      reactivation_url: '/api/v1/subscriptions/reactivate',
    });
    expect(res.body.data.feature_impact).toEqual({
      features_will_be_disabled: [
        'unlimited_dialogue',
        'advanced_scenarios',
        'detailed_analysis',
        'priority_support',
        'dialogue_training',
      ],
      features_remain_accessible: ['basic_vocabulary', 'spaced_repetition'],
    });
    expect(status.body.data.subscription_status).toMatchObject({
      is_active: true,
      status: 'cancelled',
      auto_renewal: false,
    });
    await until(() => h.eventsFor(id).some((e) => e.event === 'subscription.updated'));
    expect(h.eventsFor(id).find((e) => e.event === 'subscription.updated')).toMatchObject({
      data: {
        status: 'cancelled',
        change: 'cancelled_at_period_end',
        previousStatus: 'active',
        userRole: 'subscriber',
      },
    });

    const again = await h.post(`${BASE}/cancel`, { cancellation_reason: 'other' }, user.auth);
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('SUBSCRIPTION_CANCELLED');

    const back = await h.post(`${BASE}/reactivate`, { offer_id: 'comeback_30' }, user.auth);
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({
      reactivated: true,
      reactivation_type: 'auto_renewal_resumed',
      subscription: { subscription_id: id, status: 'active', auto_renewal: true },
      applied_offer: { offer_id: 'comeback_30', discount_percentage: 30 },
    });
    const twice = await h.post(`${BASE}/reactivate`, {}, user.auth);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
  });

  it('When a subscriber cancels immediately, Then access ends now and identity is told the user is back to free', async () => {
    const user = h.user();
    const id = await subscribe(user);
    const res = await h.post(
      `${BASE}/cancel`,
      { cancellation_reason: 'not_using', immediate_cancellation: true },
      user.auth,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.cancellation_processed).toMatchObject({
      immediate_cancellation: true,
      remaining_access_days: 0,
    });
    const check = await h.get(`${BASE}/check-access/unlimited_dialogue`, user.auth);
    expect(check.body.data.has_access).toBe(false);
    await until(() => h.eventsFor(id).some((e) => e.event === 'subscription.updated'));
    expect(h.eventsFor(id).find((e) => e.event === 'subscription.updated')).toMatchObject({
      data: { change: 'cancelled_immediately', userRole: 'user', userSubscriptionStatus: 'inactive' },
    });
    // access has ended: reactivation needs a new purchase
    const noReceipt = await h.post(`${BASE}/reactivate`, {}, user.auth);
    expect(noReceipt.status).toBe(403);
    expect(noReceipt.body.error.code).toBe('SUBSCRIPTION_CANCELLED');
    const renewed = await h.post(
      `${BASE}/reactivate`,
      { payment_method_update: { platform: 'android', new_receipt_data: `sandbox_valid_${tx()}` } },
      user.auth,
    );
    expect(renewed.status).toBe(200);
    expect(renewed.body.data).toMatchObject({
      reactivation_type: 'new_purchase',
      subscription: { status: 'active' },
    });
    expect(renewed.body.data.subscription.subscription_id).not.toBe(id);
  });

  it('When a user without a subscription cancels or reactivates, Then 404 SUBSCRIPTION_NOT_FOUND', async () => {
    const user = h.user();
    for (const path of ['cancel', 'reactivate']) {
      const res = await h.post(
        `${BASE}/${path}`,
        path === 'cancel' ? { cancellation_reason: 'other' } : {},
        user.auth,
      );
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    }
  });

  it('When the cancellation reason is not one of the spec, Then 400', async () => {
    const res = await h.post(`${BASE}/cancel`, { cancellation_reason: 'bored' }, h.user().auth);
    expect(res.status).toBe(400);
    expect(res.body.error.details.cancellation_reason).toBeDefined();
  });
});

describe('lifecycle with a moving clock', () => {
  it('When a trial is cancelled and its period passes, Then trial → cancelled → expired, with SUBSCRIPTION_EXPIRED details', async () => {
    const clockStart = h.clock.now().getTime();
    const user = h.user();
    const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('trial'), user.auth);
    expect(res.status).toBe(201);
    expect(res.body.data.subscription_details).toMatchObject({
      is_trial_period: true,
      price_paid: { amount: 0 },
    });
    const id = res.body.data.subscription_created.subscription_id;
    await until(() => h.eventsFor(id).length === 1);
    expect(h.eventsFor(id)[0]!.data).toMatchObject({ isTrialPeriod: true, userSubscriptionStatus: 'trial' });

    await h.post(`${BASE}/cancel`, { cancellation_reason: 'other' }, user.auth);
    h.clock.advance(8 * DAY);
    try {
      await until(
        async () =>
          (await h.get(`${BASE}/history`, user.auth)).body.data.subscription_history[0].status === 'expired',
      );
      await until(() =>
        h
          .eventsFor(id)
          .some(
            (e) => e.event === 'subscription.updated' && (e.data as { change: string }).change === 'expired',
          ),
      );
      const expired = h.eventsFor(id).filter((e) => (e.data as { change?: string }).change === 'expired');
      expect(expired).toHaveLength(1);
      expect(expired[0]!.data).toMatchObject({
        status: 'expired',
        previousStatus: 'cancelled',
        userRole: 'user',
      });
      const cancel = await h.post(`${BASE}/cancel`, { cancellation_reason: 'other' }, user.auth);
      expect(cancel.status).toBe(403);
      expect(cancel.body.error).toMatchObject({
        code: 'SUBSCRIPTION_EXPIRED',
        details: {
          days_since_expiration: 1,
          grace_period_remaining: 2,
          renewal_options: [{ plan_id: 'premium_monthly', price: 999, currency: 'USD' }],
        },
      });
      const status = await h.get(`${BASE}/status`, user.auth);
      expect(status.body.data.subscription_status).toMatchObject({ is_active: false, status: 'expired' });
    } finally {
      h.clock.advance(clockStart - h.clock.now().getTime());
    }
  });
});

describe('history', () => {
  it('When a user has subscriptions, Then history lists them with a summary and pagination, filters apply', async () => {
    const user = h.user();
    await h.post(`${BASE}/verify-receipt`, sandboxReceipt('discounted'), user.auth);
    await h.post(`${BASE}/cancel`, { cancellation_reason: 'other', immediate_cancellation: true }, user.auth);
    await subscribe(user);
    const res = await h.get(`${BASE}/history?limit=1&page=1`, user.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.subscription_history).toHaveLength(1);
    expect(res.body.data.subscription_history[0]).toMatchObject({
      plan_name: 'Lingua Premium',
      platform: 'ios',
      currency: 'USD',
    });
    expect(res.body.data.summary).toMatchObject({
      total_subscriptions: 2,
      total_amount_paid: 999 + 499,
      currency: 'USD',
    });
    expect(res.body.data.pagination).toEqual({ current_page: 1, total_pages: 2, total_items: 2 });
    const cancelled = await h.get(`${BASE}/history?status=cancelled`, user.auth);
    expect(cancelled.body.data.subscription_history.map((r: { status: string }) => r.status)).toEqual([
      'cancelled',
    ]);
    const future = await h.get(`${BASE}/history?start_date=2099-01-01`, user.auth);
    expect(future.body.data.summary.total_subscriptions).toBe(0);
  });

  it('When history query parameters are wrong, Then 400 naming them', async () => {
    const res = await h.get(`${BASE}/history?limit=500&page=0&start_date=yesterday`, h.user().auth);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(['limit', 'page', 'start_date']);
  });

  it('When another user asks, Then they never see the first user’s subscriptions', async () => {
    const owner = h.user();
    await subscribe(owner);
    const other = h.user();
    const res = await h.get(`${BASE}/history`, other.auth);
    expect(res.body.data.subscription_history).toEqual([]);
    expect((await h.get(`${BASE}/status`, other.auth)).body.data.subscription_status.status).toBe('none');
  });
});

describe('guests', () => {
  /** A guest's purchase on a fresh device id (a UUID v4, as apps generate them). */
  async function guestPurchase() {
    const device = randomUUID();
    const body = { ...sandboxReceipt('valid'), user_context: { user_type: 'guest', device_id: device } };
    const res = await h.post(`${BASE}/verify-receipt`, body);
    expect(res.status).toBe(201);
    expect(res.body.data.subscription_created).toMatchObject({ user_id: null, device_id: device });
    return { device, body, id: res.body.data.subscription_created.subscription_id as string };
  }
  const statusOf = async (query: string, headers?: Record<string, string>) =>
    (await h.get(`${BASE}/status${query}`, headers)).body.data.subscription_status;

  it('When a guest subscribes and then signs in and sends the purchase again from the device, Then the subscription becomes the account’s', async () => {
    const { device, body, id } = await guestPurchase();
    const guestStatus = await h.get(`${BASE}/status?device_id=${device}`);
    expect(guestStatus.body.data.subscription_status.is_active).toBe(true);
    expect(guestStatus.body.data.user_context.user_type).toBe('guest');

    const user = h.user();
    const claimed = await h.post(`${BASE}/verify-receipt`, body, user.auth);
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.subscription_created).toMatchObject({ subscription_id: id, user_id: user.id });
    expect(await statusOf('', user.auth)).toMatchObject({ is_active: true, subscription_id: id });
    await until(() =>
      h.eventsFor(id).some((e) => (e.data as { change?: string }).change === 'attached_to_account'),
    );
    // once attached, the device id alone no longer sees it
    expect((await statusOf(`?device_id=${device}`)).status).toBe('none');
  });

  it('When a signed-in caller names someone’s device (query, header or sign-up), Then nothing is attached', async () => {
    const { device, id } = await guestPurchase();
    const intruder = h.user();
    expect((await statusOf(`?device_id=${device}`, intruder.auth)).status).toBe('none');
    expect((await statusOf('', { ...intruder.auth, 'x-device-id': device })).status).toBe('none');
    expect((await h.get(`${BASE}/plans?device_id=${device}`, intruder.auth)).status).toBe(200);
    // a new account created "from" the device proves nothing either
    await h.service.deps.publisher.publish(
      makeEvent('user.created', {
        userId: intruder.id,
        email: `${intruder.id}@example.com`,
        username: 'intruder',
        authProvider: 'password',
        deviceId: device,
      }),
    );
    // the guest still has it: its status, through the same service, is untouched
    expect(await statusOf(`?device_id=${device}`)).toMatchObject({ is_active: true, subscription_id: id });
    expect((await statusOf('', intruder.auth)).status).toBe('none');
    expect(h.eventsFor(id).filter((e) => e.event === 'subscription.updated')).toEqual([]);
  });

  it('When the device id is right but the purchase is another one, or the purchase is right but the device is not, Then nothing is attached', async () => {
    const { device, body, id } = await guestPurchase();
    const intruder = h.user();
    // its own (new) purchase naming the victim's device: a subscription of its own, the guest's untouched
    const own = await h.post(
      `${BASE}/verify-receipt`,
      { ...sandboxReceipt('valid'), user_context: { device_id: device } },
      intruder.auth,
    );
    expect(own.status).toBe(201);
    expect(own.body.data.subscription_created.subscription_id).not.toBe(id);
    // the guest's purchase from another device
    const elsewhere = await h.post(
      `${BASE}/verify-receipt`,
      { ...body, user_context: { device_id: randomUUID() } },
      h.user().auth,
    );
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
    expect(await statusOf(`?device_id=${device}`)).toMatchObject({ is_active: true, subscription_id: id });
  });

  it('When a claim of a guest purchase already attached to an account is replayed by another, Then 409', async () => {
    const { body, id } = await guestPurchase();
    const owner = h.user();
    expect((await h.post(`${BASE}/verify-receipt`, body, owner.auth)).status).toBe(200);
    const replay = await h.post(`${BASE}/verify-receipt`, body, h.user().auth);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
    expect(await statusOf('', owner.auth)).toMatchObject({ is_active: true, subscription_id: id });
    // and the owner's own repeat stays idempotent
    expect((await h.post(`${BASE}/verify-receipt`, body, owner.auth)).status).toBe(200);
  });

  it.each([
    ['too short', 'device-123'],
    ['a UUID that is not v4', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
    ['too long', 'a'.repeat(129)],
  ])('When a device id is %s, Then 400 VALIDATION_ERROR in the shared envelope', async (_why, weak) => {
    const query = await h.get(`${BASE}/status?device_id=${weak}`);
    expect(query.status).toBe(400);
    expect(query.body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'VALIDATION_ERROR', details: { device_id: expect.any(Array) } },
    });
    const header = await h.get(`${BASE}/plans`, { 'x-device-id': weak });
    expect(header.status).toBe(400);
    expect(header.body.error.details['X-Device-ID']).toBeDefined();
    const body = await h.post(`${BASE}/verify-receipt`, {
      ...sandboxReceipt('valid'),
      user_context: { device_id: weak },
    });
    expect(body.status).toBe(400);
    expect(body.body.error.details).toHaveProperty(['user_context.device_id']);
  });
});

describe('account deletion', () => {
  it('When user.deleted arrives, Then the account’s subscriptions are no longer linked to it', async () => {
    const user = h.user();
    await subscribe(user);
    await h.service.deps.publisher.publish(makeEvent('user.deleted', { userId: user.id }));
    await until(
      async () => (await h.get(`${BASE}/status`, user.auth)).body.data.subscription_status.status === 'none',
    );
    const admin = h.user('admin');
    const list = await h.get(`/api/v1/admin/subscriptions?user_id=${user.id}`, admin.auth);
    expect(list.body.data.pagination.total_items).toBe(0);
  });
});

describe('dialogues', () => {
  it('When a free user practises a fourth time in a day, Then 429 QUOTA_EXCEEDED, and the count shows in status', async () => {
    const user = h.user();
    for (let i = 1; i <= 3; i++) {
      const res = await h.post('/api/v1/dialogues/practice', undefined, user.auth);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ used_today: i, remaining_today: 3 - i, access_type: 'limited' });
    }
    const fourth = await h.post('/api/v1/dialogues/practice', undefined, user.auth);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { daily_limit: 3, used_today: 3 },
    });
    const status = await h.get(`${BASE}/status`, user.auth);
    expect(status.body.data.access_permissions.dialogue_training.has_access).toBe(false);
    expect(status.body.data.usage_statistics.dialogues_this_month).toBe(3);
    const check = await h.get(`${BASE}/check-access/dialogue_training`, user.auth);
    expect(check.body.data).toMatchObject({ has_access: false, access_reason: 'daily_limit_reached' });
  });

  it('When a subscriber practises, Then there is no limit', async () => {
    const user = h.user();
    await subscribe(user);
    for (let i = 0; i < 4; i++)
      expect((await h.post('/api/v1/dialogues/practice', undefined, user.auth)).status).toBe(201);
    expect((await h.get('/api/v1/dialogues/usage', user.auth)).body.data).toMatchObject({
      access_type: 'unlimited',
      used_today: 4,
    });
  });

  it('When advanced dialogues are asked, Then 403 SUBSCRIPTION_REQUIRED for free users, 200 for subscribers and admins', async () => {
    const free = await h.get('/api/v1/dialogues/advanced', h.user().auth);
    expect(free.status).toBe(403);
    expect(free.body.error.code).toBe('SUBSCRIPTION_REQUIRED');
    const subscriber = h.user();
    await subscribe(subscriber);
    expect((await h.get('/api/v1/dialogues/advanced', subscriber.auth)).status).toBe(200);
    const admin = await h.get('/api/v1/dialogues/advanced', h.user('admin').auth);
    expect(admin.status).toBe(200);
    expect(admin.body.data.scenarios.length).toBeGreaterThan(0);
  });
});

describe('admin', () => {
  it('When a non-admin calls an admin route, Then 403', async () => {
    const res = await h.get('/api/v1/admin/subscriptions', h.user('subscriber').auth);
    expect(res.status).toBe(403);
    expect((await h.get('/api/v1/admin/subscriptions')).status).toBe(401);
  });

  it('When an admin grants, looks up, lists and revokes, Then the user gains and loses access with events', async () => {
    const admin = h.user('admin');
    const user = h.user();
    const grant = await h.post(
      '/api/v1/admin/subscriptions/grant',
      { user_id: user.id, plan_id: 'premium_monthly', duration_days: 14, reason: 'support' },
      admin.auth,
    );
    expect(grant.status).toBe(201);
    const id = grant.body.data.subscription_id;
    expect(grant.body.data).toMatchObject({
      user_id: user.id,
      status: 'active',
      verifier: 'admin',
      days_remaining: 14,
    });
    expect((await h.get(`${BASE}/check-access/priority_support`, user.auth)).body.data.has_access).toBe(true);
    const again = await h.post(
      '/api/v1/admin/subscriptions/grant',
      { user_id: user.id, plan_id: 'premium_monthly', duration_days: 14, reason: 'x' },
      admin.auth,
    );
    expect(again.status).toBe(409);

    const one = await h.get(`/api/v1/admin/subscriptions/${id}`, admin.auth);
    expect(one.body.data.subscription_id).toBe(id);
    const list = await h.get(`/api/v1/admin/subscriptions?user_id=${user.id}`, admin.auth);
    expect(list.body.data.subscriptions.map((s: { subscription_id: string }) => s.subscription_id)).toEqual([
      id,
    ]);
    expect(list.body.data.pagination.total_items).toBe(1);

    const revoke = await h.post(`/api/v1/admin/subscriptions/${id}/revoke`, { reason: 'fraud' }, admin.auth);
    expect(revoke.status).toBe(200);
    expect(revoke.body.data).toMatchObject({ status: 'cancelled', cancellation_reason: 'revoked_by_admin' });
    expect((await h.get(`${BASE}/check-access/priority_support`, user.auth)).body.data.has_access).toBe(
      false,
    );
    await until(() => h.eventsFor(id).length === 2);
    expect(
      h
        .eventsFor(id)
        .map((e) => e.event)
        .sort(),
    ).toEqual(['subscription.created', 'subscription.updated']);
    expect((await h.get(`/api/v1/admin/subscriptions/${randomUUID()}`, admin.auth)).status).toBe(404);
    expect((await h.post('/api/v1/admin/subscriptions/grant', { user_id: user.id }, admin.auth)).status).toBe(
      400,
    );
  });
});
