import { ROUTES, serviceFor } from '../src/routes';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, nowhere, Stubs, stubServices } from './harness';

const stubs = new Stubs();
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await gatewayWith({
    UPSTREAM_TIMEOUT_MS: '300',
    ...(await stubServices(stubs, {
      AI_HTTP_URL: await stubs.start('ai', 'hang'),
      NOTIFICATIONS_HTTP_URL: await nowhere(), // nothing listens there
    })),
  });
});

afterAll(async () => {
  await gateway.stop();
  stubs.close();
});

const authorization = bearer();

describe('gateway routing', () => {
  it.each([
    ['/api/v1/auth/login', 'identity'],
    ['/api/auth/register', 'identity'],
    ['/api/users/profile', 'identity'],
    ['/api/v1/admin/users', 'identity'],
    ['/api/v1/subscriptions/plans?x=1', 'subscriptions'],
    ['/api/v1/dialogues', 'subscriptions'],
    ['/api/flashcards', 'flashcards'],
    ['/api/flashcards/due', 'flashcards'],
    ['/api/study/completed-tests', 'flashcards'],
    ['/api/flashcard-sets/abc', 'flashcards'],
    ['/api/learning/due', 'flashcards'],
    ['/api/achievements', 'flashcards'],
    ['/api/export/cards?format=csv', 'flashcards'],
    ['/api/import/cards', 'flashcards'],
  ])('When %s is requested, Then %s receives it with the path unchanged', async (path, service) => {
    const admin = path.startsWith('/api/v1/admin');
    const res = await fetch(`${gateway.url}${path}`, {
      headers: { authorization: admin ? bearer({ ...adminClaims }) : authorization },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ service, url: path });
  });

  it('When an admin calls /api/v1/admin/subscriptions, Then the subscriptions service gets it, not identity', async () => {
    const res = await fetch(`${gateway.url}/api/v1/admin/subscriptions/list`, {
      headers: { authorization: bearer(adminClaims) },
    });
    expect(await res.json()).toEqual({ service: 'subscriptions', url: '/api/v1/admin/subscriptions/list' });
  });

  it('When a JSON body is posted, Then the service receives the same bytes with the request ids and the client IP', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(300_000) });
    const res = await fetch(`${gateway.url}/api/flashcards`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-request-id': 'gw-1', 'x-correlation-id': 'corr-1' },
    });
    expect(res.status).toBe(200);
    const last = stubs.last();
    expect(last).toMatchObject({ service: 'flashcards', method: 'POST', body });
    expect(last.headers).toMatchObject({
      'x-request-id': 'gw-1',
      'x-correlation-id': 'corr-1',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(res.headers.get('connection')).not.toBe('close');
  });

  it('When a multipart upload is sent, Then it is streamed through untouched', async () => {
    const form = new FormData();
    form.append('file', new Blob(['word,translation\nrun,laufen\n']), 'cards.csv');
    const res = await fetch(`${gateway.url}/api/import/cards`, {
      method: 'POST',
      body: form,
      headers: { authorization },
    });
    expect(res.status).toBe(200);
    expect(stubs.last().body).toContain('run,laufen');
    expect(stubs.last().headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('When the service is unreachable, Then 503 in the path family envelope', async () => {
    const res = await fetch(`${gateway.url}/api/notifications`, { headers: { authorization } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
  });

  it('When the service does not answer in time, Then 504 after the upstream timeout, not a hang', async () => {
    const res = await fetch(`${gateway.url}/api/ai/quota`, { headers: { authorization } });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
  });

  it('When a path belongs to no route, Then the gateway itself answers 404', async () => {
    const res = await fetch(`${gateway.url}/api/flashcardsX`, { headers: { authorization } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'RES001' } });
  });

  it('When a v2 path is requested, Then it is the gateway 404 in the shared format (v2 is not served yet)', async () => {
    const res = await fetch(`${gateway.url}/api/v2/subscriptions/plans`, { headers: { authorization } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, data: null, error: { code: 'NOT_FOUND' } });
  });

  it('When the table is read, Then no prefix is served by two services and the longest prefix wins', () => {
    const prefixes = ROUTES.flatMap((r) => r.prefixes);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(serviceFor('/api/v1/admin/subscriptions')).toBe('subscriptions');
    expect(serviceFor('/api/v1/admin/users/1')).toBe('identity');
    expect(serviceFor('/api/aide')).toBeUndefined();
  });
});

const adminClaims = {
  sub: '33333333-3333-4333-8333-333333333333',
  email: 'admin@example.com',
  username: 'admin',
  role: 'admin' as const,
  subscription_status: 'inactive' as const,
};
