import type { RunningService } from '@lingua/bootstrap';
import { isolatedServiceEnv } from '@lingua/testing';
import { call, stopAndDrop, startNotifications, tokenFor } from './support';

jest.setTimeout(120_000);

// Production-like URL policy: private and loopback targets are refused.
let service: RunningService;
const PUBLIC_URL = 'https://93.184.216.34/hooks';

beforeAll(async () => {
  // no worker: nothing is sent to the (public, unreachable) test URLs, and deliveries stay pending
  ({ service } = await startNotifications(
    { runWebhookWorker: false },
    isolatedServiceEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }),
  ));
});
afterAll(async () => {
  await stopAndDrop(service);
});

const create = (auth: Record<string, string>, body: unknown) =>
  call(service, 'POST', '/api/webhooks', { headers: auth, body });

describe('webhook endpoint management', () => {
  it('When a user registers an endpoint, Then it is created with a whsec_ secret shown once and listed for its owner', async () => {
    const user = tokenFor(service);
    const res = await create(user.auth, {
      url: PUBLIC_URL,
      events: ['user.deleted'],
      description: 'CRM sync',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.stringMatching(/^ep_/),
      url: PUBLIC_URL,
      events: ['user.deleted'],
      scope: 'own',
      ownerId: user.sub,
      enabled: true,
      description: 'CRM sync',
      circuit: { state: 'closed', consecutiveFailures: 0 },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/),
    });
    const id = res.body.data.id as string;
    const got = await call(service, 'GET', `/api/webhooks/${id}`, { headers: user.auth });
    expect(got.status).toBe(200);
    expect(got.body.data.secret).toBeUndefined();
    const list = await call(service, 'GET', '/api/webhooks', { headers: user.auth });
    expect(list.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
    expect(list.body.data.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
  });

  it.each([
    ['http://127.0.0.1:8080/hook'],
    ['http://localhost/hook'],
    ['http://169.254.169.254/latest/meta-data'],
    ['http://[::ffff:10.0.0.1]/hook'],
    ['ftp://93.184.216.34/hook'],
  ])('When the URL is %s, Then registration is refused with 400 naming url', async (url) => {
    const user = tokenFor(service);
    const res = await create(user.auth, { url, events: ['user.created'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'VAL001', details: { url: expect.any(Array) } },
    });
  });

  it.each([
    ['url', { events: ['user.created'] }],
    ['events', { url: PUBLIC_URL, events: [] }],
    ['events.0', { url: PUBLIC_URL, events: ['card.reviewed'] }],
    ['_', { url: PUBLIC_URL, events: ['user.created'], extra: 1 }],
    ['events', { url: PUBLIC_URL, events: 'user.created' }],
    ['url', { url: { $gt: '' }, events: ['user.created'] }],
    ['description', { url: PUBLIC_URL, events: ['user.created'], description: 'x'.repeat(501) }],
  ])('When the body breaks the rules for %s, Then the answer is 400 naming it', async (field, body) => {
    const user = tokenFor(service);
    const res = await create(user.auth, body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toContain(field);
  });

  it('When the body is not JSON, Then the answer is 400, not 500', async () => {
    const user = tokenFor(service);
    const res = await call(service, 'POST', '/api/webhooks', { headers: user.auth, body: '{"url":' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it("When a non-admin asks for every account's events, Then it is forbidden; an admin may", async () => {
    const user = tokenFor(service);
    expect(
      (await create(user.auth, { url: PUBLIC_URL, events: ['user.created'], scope: 'all' })).status,
    ).toBe(403);
    const admin = tokenFor(service, { role: 'admin' });
    expect(
      (await create(admin.auth, { url: PUBLIC_URL, events: ['user.created'], scope: 'all' })).status,
    ).toBe(201);
  });

  it('When another user reads, changes or deletes an endpoint, Then it is not found; an admin sees and manages it', async () => {
    const owner = tokenFor(service);
    const other = tokenFor(service);
    const admin = tokenFor(service, { role: 'admin' });
    const id = (await create(owner.auth, { url: PUBLIC_URL, events: ['user.created'] })).body.data
      .id as string;

    for (const [method, path, body] of [
      ['GET', `/api/webhooks/${id}`, undefined],
      ['PATCH', `/api/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/api/webhooks/${id}`, undefined],
      ['POST', `/api/webhooks/${id}/rotate-secret`, undefined],
      ['POST', `/api/webhooks/${id}/test`, undefined],
      ['GET', `/api/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      const res = await call(service, method, path, { headers: other.auth, body });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await call(service, 'GET', '/api/webhooks', { headers: other.auth })).body.data.webhooks).toEqual(
      [],
    );

    const all = await call(service, 'GET', '/api/webhooks?limit=100', { headers: admin.auth });
    expect(all.body.data.webhooks.map((w: { id: string }) => w.id)).toContain(id);
    const patched = await call(service, 'PATCH', `/api/webhooks/${id}`, {
      headers: admin.auth,
      body: { events: ['subscription.created', 'subscription.updated'], description: 'by admin' },
    });
    expect(patched.body.data).toMatchObject({
      events: ['subscription.created', 'subscription.updated'],
      description: 'by admin',
    });

    const del = await call(service, 'DELETE', `/api/webhooks/${id}`, { headers: owner.auth });
    expect(del.body.data).toEqual({ id, deleted: true });
    expect((await call(service, 'GET', `/api/webhooks/${id}`, { headers: admin.auth })).status).toBe(404);
  });

  it('When an update points the endpoint at a private address or is empty, Then it is refused and nothing changes', async () => {
    const user = tokenFor(service);
    const id = (await create(user.auth, { url: PUBLIC_URL, events: ['user.created'] })).body.data
      .id as string;
    const bad = await call(service, 'PATCH', `/api/webhooks/${id}`, {
      headers: user.auth,
      body: { url: 'http://10.0.0.1/' },
    });
    expect(bad.status).toBe(400);
    const empty = await call(service, 'PUT', `/api/webhooks/${id}`, { headers: user.auth, body: {} });
    expect(empty.status).toBe(400);
    expect((await call(service, 'GET', `/api/webhooks/${id}`, { headers: user.auth })).body.data.url).toBe(
      PUBLIC_URL,
    );
  });

  it('When an account reaches the endpoint limit, Then another registration is a conflict', async () => {
    const user = tokenFor(service);
    for (let i = 0; i < 10; i++)
      expect((await create(user.auth, { url: `${PUBLIC_URL}/${i}`, events: ['user.created'] })).status).toBe(
        201,
      );
    const res = await create(user.auth, { url: PUBLIC_URL, events: ['user.created'] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('RES002');
  });

  it('When a delivery id does not exist or a pending one is replayed, Then 404 and 409', async () => {
    const user = tokenFor(service);
    const id = (await create(user.auth, { url: PUBLIC_URL, events: ['user.created'] })).body.data
      .id as string;
    const missing = await call(service, 'POST', `/api/webhooks/${id}/deliveries/nope/replay`, {
      headers: user.auth,
    });
    expect(missing.status).toBe(404);
    const test = await call(service, 'POST', `/api/webhooks/${id}/test`, { headers: user.auth });
    expect(test.status).toBe(202);
    const detail = await call(
      service,
      'GET',
      `/api/webhooks/${id}/deliveries/${encodeURIComponent(test.body.data.id)}`,
      {
        headers: user.auth,
      },
    );
    expect(detail.body.data.payload).toMatchObject({ event: 'webhook.test', data: { endpointId: id } });
    expect(detail.body.data).toMatchObject({ status: 'pending', attempts: 0, attemptLog: [] });
    const conflict = await call(
      service,
      'POST',
      `/api/webhooks/${id}/deliveries/${encodeURIComponent(test.body.data.id)}/replay`,
      { headers: user.auth },
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('RES002');
  });

  it('When there is no token, Then every webhook route answers 401', async () => {
    expect((await call(service, 'GET', '/api/webhooks')).status).toBe(401);
    expect(
      (await call(service, 'POST', '/api/webhooks', { body: { url: PUBLIC_URL, events: ['user.created'] } }))
        .status,
    ).toBe(401);
  });

  it('When the OpenAPI fragment is fetched, Then it documents the notification and webhook routes', async () => {
    const res = await call(service, 'GET', '/internal/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/notifications',
        '/api/notifications/{notificationId}/read',
        '/api/notifications/read-all',
        '/api/webhooks',
        '/api/webhooks/{webhookId}/deliveries/{deliveryId}/replay',
      ]),
    );
  });
});
