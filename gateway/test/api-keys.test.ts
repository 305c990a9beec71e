import { connectRedis } from '@lingua/redis';
import { redisUrl, uniqueName } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { ADMIN, bearer, gatewayWith, Stubs, stubServices, USER } from './harness';

const stubs = new Stubs();
let gateway: RunningGateway;
const KEY_PREFIX = uniqueName('gw-key');

beforeAll(async () => {
  gateway = await gatewayWith({
    ...(await stubServices(stubs)),
    RATE_LIMIT_API_KEY_PER_HOUR: '7',
    API_KEY_PREFIX: KEY_PREFIX,
  });
});

afterAll(async () => {
  await gateway.stop();
  stubs.close();
});

const admin = bearer(ADMIN);
const json = { 'content-type': 'application/json' };

async function issue(body: object) {
  const res = await fetch(`${gateway.url}/api/v1/admin/api-keys`, {
    method: 'POST',
    headers: { ...json, authorization: admin },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('API keys', () => {
  it('When an admin issues a key, Then the secret is shown once and the key opens its scopes only', async () => {
    const issued = await issue({
      name: 'Partner CMS',
      client_id: 'partner-cms',
      scopes: ['flashcards:read'],
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({
      success: true,
      data: {
        key_id: expect.any(String),
        client_id: 'partner-cms',
        scopes: ['flashcards:read'],
        created_by: ADMIN.sub,
        expires_at: null,
        revoked_at: null,
        api_key: expect.stringMatching(/^lingua_[\w-]{43}$/),
      },
      meta: { api_version: 'v1' },
    });
    const { api_key: secret, key_id: keyId } = issued.body.data;
    const headers = { 'x-api-key': secret, 'x-client-id': 'partner-cms' };

    const read = await fetch(`${gateway.url}/api/flashcard-sets`, { headers });
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-limit')).toBe('7');
    expect(stubs.last().headers).toMatchObject({
      'x-client-id': 'partner-cms',
      'x-api-key-id': keyId,
      'x-api-key-scopes': 'flashcards:read',
    });
    expect(stubs.last().headers['x-api-key']).toBeUndefined();

    const write = await fetch(`${gateway.url}/api/flashcard-sets`, {
      method: 'POST',
      headers: { ...headers, ...json },
      body: '{}',
    });
    expect(write.status).toBe(403);
    const otherService = await fetch(`${gateway.url}/api/users/profile`, { headers });
    expect(otherService.status).toBe(403);
    const adminPath = await fetch(`${gateway.url}/api/v1/admin/api-keys`, { headers });
    expect(adminPath.status).toBe(403);

    // listing never shows the secret or its hash
    const list = await (
      await fetch(`${gateway.url}/api/v1/admin/api-keys?limit=100`, { headers: { authorization: admin } })
    ).json();
    const listed = list.data.api_keys.find((k: { key_id: string }) => k.key_id === keyId);
    expect(listed).toMatchObject({ key_id: keyId, name: 'Partner CMS' });
    expect(JSON.stringify(list)).not.toContain(secret);
    expect(listed.hash).toBeUndefined();
    expect(list.data.pagination).toMatchObject({ current_page: 1, items_per_page: 100, has_prev: false });

    // revoked: refused at once
    const revoked = await fetch(`${gateway.url}/api/v1/admin/api-keys/${keyId}`, {
      method: 'DELETE',
      headers: { authorization: admin },
    });
    expect(revoked.status).toBe(200);
    expect((await revoked.json()).data.revoked_at).toEqual(expect.any(String));
    const after = await fetch(`${gateway.url}/api/flashcard-sets`, { headers });
    expect(after.status).toBe(401);
    expect((await after.json()).error.code).toBe('AUTH001');
  });

  it('When the client id does not match the key, or the key is unknown, Then 401', async () => {
    const { body } = await issue({ name: 'Sync job', client_id: 'sync-job', scopes: ['*'] });
    const wrongClient = await fetch(`${gateway.url}/api/v1/subscriptions/history`, {
      headers: { 'x-api-key': body.data.api_key, 'x-client-id': 'someone-else' },
    });
    expect(wrongClient.status).toBe(401);
    expect(await wrongClient.json()).toMatchObject({ data: null, error: { code: 'TOKEN_INVALID' } });
    const unknown = await fetch(`${gateway.url}/api/v1/subscriptions/history`, {
      headers: { 'x-api-key': 'lingua_nope', 'x-client-id': 'sync-job' },
    });
    expect(unknown.status).toBe(401);
    const ok = await fetch(`${gateway.url}/api/v1/subscriptions/history`, {
      headers: { 'x-api-key': body.data.api_key, 'x-client-id': 'sync-job' },
    });
    expect(ok.status).toBe(200);
  });

  it('When the key budget is spent, Then 429', async () => {
    const { body } = await issue({ name: 'Busy', client_id: 'busy-client', scopes: ['ai:read'] });
    const headers = { 'x-api-key': body.data.api_key, 'x-client-id': 'busy-client' };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await fetch(`${gateway.url}/api/ai/quota`, { headers })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
  });

  it('When a non-admin or a guest manages keys, Then 403 or 401', async () => {
    const asUser = await fetch(`${gateway.url}/api/v1/admin/api-keys`, {
      headers: { authorization: bearer(USER) },
    });
    expect(asUser.status).toBe(403);
    expect((await fetch(`${gateway.url}/api/v1/admin/api-keys`)).status).toBe(401);
  });

  it('When the issue request is invalid, Then 400 VALIDATION_ERROR with the fields', async () => {
    const res = await issue({ name: '', client_id: 'x', scopes: ['everything'], extra: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.error.details).sort()).toEqual(expect.arrayContaining(['client_id', 'name']));
    const notFound = await fetch(
      `${gateway.url}/api/v1/admin/api-keys/00000000-0000-4000-8000-000000000000`,
      {
        headers: { authorization: admin },
      },
    );
    expect(notFound.status).toBe(404);
    const badId = await fetch(`${gateway.url}/api/v1/admin/api-keys/nope`, {
      headers: { authorization: admin },
    });
    expect(badId.status).toBe(400);
  });

  it.each([
    ['a scope this version does not know', ['flashcards:read', 'partner:everything']],
    ['scopes that are not a list', '*'],
  ])(
    'When a stored key carries %s, Then it opens nothing (401), not even the status',
    async (_what, scopes) => {
      const { body } = await issue({
        name: 'Legacy',
        client_id: 'legacy-client',
        scopes: ['flashcards:read'],
      });
      // as an older version, a hand edit or a corrupted write could have left it
      const redis = await connectRedis(redisUrl());
      try {
        const key = `${KEY_PREFIX}:{apikeys}:id:${body.data.key_id}`;
        const stored = JSON.parse((await redis.client.get(key))!);
        await redis.client.set(key, JSON.stringify({ ...stored, scopes }));
      } finally {
        await redis.close();
      }
      const headers = { 'x-api-key': body.data.api_key, 'x-client-id': 'legacy-client' };
      for (const [method, path] of [
        ['GET', '/api/v1/status'],
        ['GET', '/api/flashcard-sets'],
        ['DELETE', '/api/flashcard-sets/1'],
      ] as const) {
        const res = await fetch(`${gateway.url}${path}`, { method, headers });
        expect([path, res.status]).toEqual([path, 401]);
      }
    },
  );

  it('When a key calls a path no service owns, Then 403 (nothing to check its scopes against)', async () => {
    const { body } = await issue({ name: 'All', client_id: 'all-client', scopes: ['*'] });
    const headers = { 'x-api-key': body.data.api_key, 'x-client-id': 'all-client' };
    expect((await fetch(`${gateway.url}/api/v1/status`, { headers })).status).toBe(200);
    const unrouted = await fetch(`${gateway.url}/api/v1/not-a-service`, { headers });
    expect(unrouted.status).toBe(403);
  });
});
