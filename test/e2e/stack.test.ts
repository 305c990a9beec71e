import { randomUUID } from 'node:crypto';
import { createAccessTokens } from '@lingua/auth';
import { freePort, isolatedServiceEnv, waitFor } from '@lingua/testing';
import { checkAgainstDocument, type Recorded } from './openapi-conformance';

// The launcher is plain CommonJS (it runs before anything is built), so it is required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require('../../deploy/local/start-stack.js') as {
  startStack(o: { env: Record<string, string>; infra: boolean; quiet: boolean }): Promise<{
    url: string;
    stop(): Promise<void>;
    mails?: { to: string; subject: string; links: string[] }[];
  }>;
};

// The development secret every part uses when JWT_SECRET is unset (NODE_ENV=test).
const tokens = createAccessTokens('lingua-local-development-secret-do-not-use-in-production');
const authorization = `Bearer ${
  tokens.sign({
    sub: '5b0e4a52-8f0d-4a5e-9c1e-1f2a3b4c5d6e',
    email: 'e2e@example.com',
    username: 'e2e_user',
    role: 'user',
    subscription_status: 'inactive',
  }).token
}`;

// The whole stack as `npm start` runs it: five services and the gateway as separate processes
// from their built dist/, on free ports, against the infrastructure npm test started.
let stack: { url: string; stop(): Promise<void>; mails?: { to: string; subject: string; links: string[] }[] };
/** Every JSON response of this suite, checked against the OpenAPI document at the end. */
const recorded: Recorded[] = [];

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${stack.url}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
    recorded.push({ method: init.method ?? 'GET', path, status: res.status, body });
  } catch {
    /* not JSON */
  }
  return { res, body: body as Record<string, unknown> & { [k: string]: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

beforeAll(async () => {
  const env = isolatedServiceEnv({
    LOG_LEVEL: 'warn',
    GATEWAY_PORT: String(await freePort()),
    // the launcher's development mail sink listens there
    SMTP_PORT: String(await freePort()),
  });
  for (const svc of ['IDENTITY', 'FLASHCARDS', 'SUBSCRIPTIONS', 'AI', 'NOTIFICATIONS']) {
    env[`${svc}_HTTP_PORT`] = String(await freePort());
    env[`${svc}_GRPC_PORT`] = String(await freePort());
    env[`${svc}_HTTP_URL`] = `http://127.0.0.1:${env[`${svc}_HTTP_PORT`]}`;
  }
  stack = await startStack({ env, infra: false, quiet: true });
}, 120_000);

afterAll(() => stack?.stop());

describe('the whole stack', () => {
  it('When someone registers, Then the verification e-mail reaches the development mail sink with its link', async () => {
    const email = `mail${Date.now()}@example.com`;
    const { res } = await call('/api/v1/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'Secret123', username: `m_${Date.now().toString(36)}` }),
    });
    expect(res.status).toBe(201);
    await waitFor(() => expect(stack.mails?.find((m) => m.to.includes(email))).toBeDefined(), {
      timeoutMs: 30_000,
    });
    const mail = stack.mails!.find((m) => m.to.includes(email))!;
    expect(mail.links.some((l) => /token=/.test(l))).toBe(true);
  }, 60_000);

  it('When booted, Then the gateway reports every part healthy in the spec formats', async () => {
    const { body: health } = await call('/health');
    expect(health).toMatchObject({
      status: 'healthy',
      version: '0.1.0',
      checks: { database: 'healthy', redis: 'healthy', external_apis: 'healthy' },
    });
    expect(new Date(health.timestamp).toISOString()).toBe(health.timestamp);

    expect((await call('/api/health')).body).toMatchObject({
      Status: 'Healthy',
      Version: '0.1.0',
      Service: 'lingua-api',
    });
    const { body: detailed } = await call('/api/health/detailed');
    expect(detailed).toMatchObject({
      Status: 'Healthy',
      Environment: 'test',
      Database: 'Healthy',
      Cache: 'Healthy',
    });
    expect(Object.keys(detailed.Services).sort()).toEqual([
      'ai',
      'flashcards',
      'identity',
      'notifications',
      'subscriptions',
    ]);
    expect(detailed.Memory.RssMb).toBeGreaterThan(0);
  });

  it('When a path of each group is called, Then the gateway routes it to its service and keeps the request id', async () => {
    for (const [path, code] of [
      ['/api/v1/auth/unknown', 'NOT_FOUND'], // Group A auth envelope, from identity
      ['/api/flashcard-sets/unknown/x', 'RES001'], // Group C envelope, from flashcards
    ] as const) {
      const { res, body } = await call(path, { headers: { 'x-request-id': 'e2e-1', authorization } });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe('e2e-1');
      expect(body).toMatchObject({ success: false, error: { code } });
    }
    const groupB = await call('/api/flashcards/00000000-0000-0000-0000-000000000000/nothing', {
      headers: { authorization },
    });
    expect(groupB.body).toEqual({
      success: false,
      error: 'No route for GET /api/flashcards/00000000-0000-0000-0000-000000000000/nothing',
    });
  });

  it('When a protected path is called without a token, Then the gateway answers 401 before any service', async () => {
    const { res, body } = await call('/api/users/profile');
    expect(res.status).toBe(401);
    expect(body).toMatchObject({ success: false, error: { code: 'AUTH003' } });
  });

  it('When the status is asked, Then the caller gets the API state and the remaining budget', async () => {
    const { res, body } = await call('/api/v1/status', { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(body.data).toMatchObject({ api_status: 'operational', maintenance_mode: false });
    expect(body.data.rate_limit_remaining).toBeGreaterThan(0);
  });

  it('When /docs and /openapi.json are read, Then the document covers the services and the gateway', async () => {
    const { res, body: doc } = await call('/openapi.json');
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/status', '/health']));
    expect((await fetch(`${stack.url}/docs/`)).status).toBe(200);
  });

  it('When a guest buys on a device, signs up and sends the purchase again, Then the account gets the subscription and its next token the subscriber role', async () => {
    const json = (token?: string) => ({
      'content-type': 'application/json',
      ...(token && { authorization: `Bearer ${token}` }),
    });
    const device = randomUUID(); // a guest's device id is a secret: random, 128 bits
    const tx = `e2e${Date.now()}`;
    const purchase = JSON.stringify({
      platform: 'ios',
      receipt_data: `sandbox_valid_${tx}`,
      transaction_id: tx,
      product_id: 'com.lingua.premium.monthly',
      user_context: { user_type: 'guest', device_id: device },
    });
    const bought = await call('/api/v1/subscriptions/verify-receipt', {
      method: 'POST',
      headers: json(),
      body: purchase,
    });
    expect(bought.body).toMatchObject({
      success: true,
      data: { subscription_created: { device_id: device, user_id: null, status: 'active' } },
    });

    const registered = await call('/api/v1/auth/register', {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({
        email: `${tx}@example.com`,
        password: 'Secret123',
        username: `u_${tx.slice(-12)}`,
        deviceId: device,
      }),
    });
    expect(registered.res.status).toBe(201);
    const first = registered.body.data as { accessToken: string; refreshToken: string };
    // naming the device at sign-up attaches nothing; the purchase sent again, signed in, claims it
    const claimed = await call('/api/v1/subscriptions/verify-receipt', {
      method: 'POST',
      headers: json(first.accessToken),
      body: purchase,
    });
    expect(claimed.res.status).toBe(200);
    // free until the events have gone round: subscriptions attaches the guest purchase →
    // subscription.updated → identity sets the role for the next token
    const gated = await call('/api/v1/dialogues/advanced', { headers: json(first.accessToken) });
    expect(gated.res.status).toBe(403);
    expect(gated.body).toMatchObject({ error: { code: 'SUBSCRIPTION_REQUIRED' } });

    let refresh = first.refreshToken;
    let access = first.accessToken;
    await waitFor(
      async () => {
        const status = await call('/api/v1/subscriptions/status', { headers: json(access) });
        const renewed = await call('/api/v1/auth/refresh', { method: 'POST', headers: json(refresh) });
        expect(renewed.res.status).toBe(200);
        ({ accessToken: access, refreshToken: refresh } = renewed.body.data);
        const claims = JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString());
        expect([status.body.data?.subscription_status?.is_active, claims.role]).toEqual([true, 'subscriber']);
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const advanced = await call('/api/v1/dialogues/advanced', { headers: json(access) });
    expect(advanced.res.status).toBe(200);
    expect(advanced.body).toMatchObject({ success: true });
  }, 60_000);

  it('When the responses of this suite are checked against /openapi.json, Then every documented one conforms', async () => {
    const doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as Parameters<
      typeof checkAgainstDocument
    >[0];
    const { failures, checked } = checkAgainstDocument(doc, recorded);
    expect(checked.length).toBeGreaterThanOrEqual(4); // health ×3 and status at least
    expect(failures).toEqual([]);
    // and the check does bite: a status body missing its fields is reported
    const broken = checkAgainstDocument(doc, [
      {
        method: 'GET',
        path: '/api/v1/status',
        status: 200,
        body: { success: true, data: { api_status: 1 } },
      },
    ]);
    expect(broken.failures).toHaveLength(1);
  });
});
