import { randomBytes } from 'node:crypto';
import { isolatedServiceEnv, uniqueName, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// Subscriptions and administration through the gateway, each by its real caller: a subscriber's app
// (a sandbox purchase, cancelled at the period's end, then reactivated with the retention offer), an
// admin (a registered user an operator made admin in identity's database, then signed in) granting,
// looking up and revoking a complimentary subscription and issuing an API key, and the partner
// calling with that key.
jest.setTimeout(120_000);

const BASE = '/api/v1/subscriptions';
let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }), {
    // the keys this suite issues live under a name of its own (removed with the suite)
    API_KEY_PREFIX: uniqueName('apikey'),
  });
});
afterAll(() => stopAndDrop(stack));

async function register() {
  const u = newCredentials('s');
  const res = await call('POST', '/api/v1/auth/register', { body: u });
  expect(res.status).toBe(201);
  return { ...u, id: res.body.data.userId as string, token: res.body.data.accessToken as string };
}

/** An operator makes the account admin in identity's database; the user then signs in again. */
async function admin(): Promise<string> {
  const u = await register();
  const users = stack.services.identity.deps.mongo.connection.collection('users');
  expect((await users.updateOne({ _id: u.id as never }, { $set: { role: 'admin' } })).modifiedCount).toBe(1);
  const login = await call('POST', '/api/v1/auth/login', { body: { email: u.email, password: u.password } });
  expect(login.status).toBe(200);
  expect(login.body.data.userRole).toBe('admin');
  return login.body.data.accessToken as string;
}

const hasAccess = async (token: string, feature: string) => {
  const res = await call('GET', `${BASE}/check-access/${feature}`, { token });
  expect(res.status).toBe(200);
  return res.body.data.has_access as boolean;
};

describe('subscriptions and admin through the gateway', () => {
  it('When a subscriber cancels at the period end and then takes the retention offer, Then access continues, and reactivation resumes auto-renewal', async () => {
    const user = await register();
    const tx = `tx${randomBytes(8).toString('hex')}`;
    const bought = await call('POST', `${BASE}/verify-receipt`, {
      token: user.token,
      body: {
        platform: 'ios',
        receipt_data: `sandbox_valid_${tx}`,
        transaction_id: tx,
        product_id: 'com.lingua.premium.monthly',
      },
    });
    expect(bought.status).toBe(201);
    const id = bought.body.data.subscription_created.subscription_id as string;
    expect(await hasAccess(user.token, 'unlimited_dialogue')).toBe(true);

    const cancelled = await call('POST', `${BASE}/cancel`, {
      token: user.token,
      body: { cancellation_reason: 'too_expensive', feedback: 'a bit pricey', immediate_cancellation: false },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.cancellation_processed).toMatchObject({
      subscription_id: id,
      immediate_cancellation: false,
    });
    expect(cancelled.body.data.cancellation_processed.remaining_access_days).toBeGreaterThan(0);
    expect(cancelled.body.data.retention_offer).toMatchObject({
      offer_id: expect.any(String),
      reactivation_url: `${BASE}/reactivate`,
    });
    expect(cancelled.body.data.feature_impact.features_remain_accessible).toEqual([
      'basic_vocabulary',
      'spaced_repetition',
    ]);
    const status = await call('GET', `${BASE}/status`, { token: user.token });
    expect(status.body.data.subscription_status).toMatchObject({
      is_active: true,
      status: 'cancelled',
      auto_renewal: false,
    });
    expect(await hasAccess(user.token, 'unlimited_dialogue')).toBe(true);

    const offer = cancelled.body.data.retention_offer.offer_id as string;
    const back = await call('POST', `${BASE}/reactivate`, { token: user.token, body: { offer_id: offer } });
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({
      reactivated: true,
      reactivation_type: 'auto_renewal_resumed',
      subscription: { subscription_id: id, status: 'active', auto_renewal: true },
      applied_offer: { offer_id: offer },
    });
    const after = await call('GET', `${BASE}/status`, { token: user.token });
    expect(after.body.data.subscription_status).toMatchObject({ status: 'active', auto_renewal: true });
  });

  it('When an admin grants a complimentary subscription, looks it up and revokes it, Then the user gains and loses access', async () => {
    const adminToken = await admin();
    const user = await register();
    const grant = await call('POST', '/api/v1/admin/subscriptions/grant', {
      token: adminToken,
      body: { user_id: user.id, plan_id: 'premium_monthly', duration_days: 14, reason: 'support goodwill' },
    });
    expect(grant.status).toBe(201);
    expect(grant.body.data).toMatchObject({
      user_id: user.id,
      status: 'active',
      verifier: 'admin',
      days_remaining: 14,
    });
    const id = grant.body.data.subscription_id as string;
    expect(await hasAccess(user.token, 'priority_support')).toBe(true);

    const one = await call('GET', `/api/v1/admin/subscriptions/${id}`, { token: adminToken });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ subscription_id: id, user_id: user.id, status: 'active' });

    const revoked = await call('POST', `/api/v1/admin/subscriptions/${id}/revoke`, {
      token: adminToken,
      body: { reason: 'granted by mistake' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({
      subscription_id: id,
      status: 'cancelled',
      cancellation_reason: 'revoked_by_admin',
    });
    expect(await hasAccess(user.token, 'priority_support')).toBe(false);
  });

  it('When an admin issues an API key and looks it up, Then the partner calls with it until the admin revokes it', async () => {
    const adminToken = await admin();
    const issued = await call('POST', '/api/v1/admin/api-keys', {
      token: adminToken,
      body: {
        name: 'Partner CMS',
        client_id: 'partner-cms',
        scopes: ['flashcards:read'],
        expires_in_days: 30,
      },
    });
    expect(issued.status).toBe(201);
    const { key_id: keyId, api_key: secret } = issued.body.data as { key_id: string; api_key: string };
    expect(secret).toMatch(/^lingua_/);

    const got = await call('GET', `/api/v1/admin/api-keys/${keyId}`, { token: adminToken });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      key_id: keyId,
      client_id: 'partner-cms',
      name: 'Partner CMS',
      scopes: ['flashcards:read'],
      revoked_at: null,
    });
    expect(got.body.data.api_key).toBeUndefined();

    // the partner's server: its key and client id, no user token
    const partner = { 'x-api-key': secret, 'x-client-id': 'partner-cms' };
    const status = await call('GET', '/api/v1/status', { headers: partner });
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ api_status: expect.any(String), maintenance_mode: false });

    const removed = await call('DELETE', `/api/v1/admin/api-keys/${keyId}`, { token: adminToken });
    expect(removed.status).toBe(200);
    await waitFor(async () =>
      expect((await call('GET', '/api/v1/status', { headers: partner })).status).toBe(401),
    );
  });
});
