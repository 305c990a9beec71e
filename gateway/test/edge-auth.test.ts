import { createAccessTokens } from '@lingua/auth';
import { TestClock, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import {
  ADMIN,
  bearer,
  blacklistOf,
  expiredBearer,
  gatewayWith,
  SECRET,
  Stubs,
  stubServices,
  SUBSCRIBER,
  tokens,
  USER,
} from './harness';

const stubs = new Stubs();
let gateway: RunningGateway;
let blacklist: Awaited<ReturnType<typeof blacklistOf>>;

beforeAll(async () => {
  gateway = await gatewayWith(await stubServices(stubs));
  blacklist = await blacklistOf();
});

afterAll(async () => {
  await gateway.stop();
  await blacklist.redis.close();
  stubs.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${gateway.url}${path}`, { method, headers });

describe('authentication at the edge', () => {
  it.each([
    ['/api/v1/subscriptions/history', { code: 'UNAUTHORIZED' }, { data: null }],
    ['/api/users/profile', { code: 'AUTH003' }, {}],
    ['/api/v1/status', { code: 'UNAUTHORIZED' }, { data: null }],
  ])('When %s is called without a token, Then 401 %o and no service sees it', async (path, error, extra) => {
    const before = stubs.seen.length;
    const res = await get(path);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error, ...extra });
    expect(stubs.seen.length).toBe(before);
  });

  it.each([
    ['/api/v1/subscriptions/history', 'TOKEN_INVALID'],
    ['/api/users/profile', 'AUTH001'],
    ['/api/v1/auth/logout', 'TOKEN_INVALID'],
  ])('When %s gets a malformed or wrongly signed token, Then 401 %s', async (path, code) => {
    const forged = bearer(USER).replace(/.{6}$/, 'AAAAAA');
    for (const authorization of ['Bearer not-a-jwt', forged, 'Basic abc']) {
      const res = await get(path, { authorization }, path.endsWith('logout') ? 'POST' : 'GET');
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe(code);
    }
  });

  it.each([
    ['/api/v1/subscriptions/history', 'TOKEN_EXPIRED'],
    ['/api/learning/due', 'AUTH002'],
  ])('When %s gets an expired token, Then 401 %s', async (path, code) => {
    const res = await get(path, { authorization: expiredBearer() });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe(code);
  });

  it('When a token was revoked at logout, Then it is refused with TOKEN_BLACKLISTED (AUTH001 in Group C)', async () => {
    const { token, claims } = tokens.sign({ ...USER, sub: '44444444-4444-4444-8444-444444444444' });
    expect((await get('/api/v1/subscriptions/history', { authorization: `Bearer ${token}` })).status).toBe(
      200,
    );
    await blacklist.revoke(claims.jti);
    const groupA = await get('/api/v1/subscriptions/history', { authorization: `Bearer ${token}` });
    expect(groupA.status).toBe(401);
    expect((await groupA.json()).error.code).toBe('TOKEN_BLACKLISTED');
    const groupC = await get('/api/users/profile', { authorization: `Bearer ${token}` });
    expect((await groupC.json()).error.code).toBe('AUTH001');
  });

  it('When one of two sign-ins of the same second logs out, Then the other token still passes the edge', async () => {
    const pinned = createAccessTokens(SECRET, new TestClock(new Date())); // both signed in one second
    const who = { ...USER, sub: '55555555-5555-4555-8555-555555555555' };
    const phone = pinned.sign(who);
    const tablet = pinned.sign(who);
    const path = '/api/v1/subscriptions/history';
    const call = (token: string) => get(path, { authorization: `Bearer ${token}` });
    expect((await call(phone.token)).status).toBe(200);
    expect((await call(tablet.token)).status).toBe(200);
    await blacklist.revoke(phone.claims.jti);
    await waitFor(async () => expect((await call(phone.token)).status).toBe(401));
    expect((await call(tablet.token)).status).toBe(200);
  });

  it('When the refresh endpoint gets a refresh token (not a JWT), Then it reaches identity untouched', async () => {
    const res = await get('/api/v1/auth/refresh', { authorization: 'Bearer opaque.refresh-token' }, 'POST');
    expect(res.status).toBe(200);
    expect(stubs.last()).toMatchObject({ service: 'identity', url: '/api/v1/auth/refresh' });
    expect(stubs.last().headers.authorization).toBe('Bearer opaque.refresh-token');
  });

  it('When public and guest operations are called without a token, Then they reach their service as guests', async () => {
    for (const [path, method] of [
      ['/api/v1/auth/register', 'POST'],
      ['/api/auth/forgot-password', 'POST'],
      ['/api/v1/subscriptions/plans', 'GET'],
      ['/api/flashcards', 'GET'],
    ] as const) {
      const res = await get(path, { 'x-user-id': 'spoofed', 'x-user-role': 'admin' }, method);
      expect(res.status).toBe(200);
      expect(stubs.last().url).toBe(path);
      expect(stubs.last().headers['x-user-id']).toBeUndefined();
      expect(stubs.last().headers['x-user-role']).toBeUndefined();
    }
  });

  it('When a guest operation gets a bad token, Then 401 rather than a silent guest', async () => {
    const res = await get('/api/v1/subscriptions/plans', { authorization: 'Bearer junk' });
    expect(res.status).toBe(401);
  });

  it('When a valid token is sent, Then the service receives it unchanged plus the verified identity, never a spoofed one', async () => {
    const authorization = bearer(SUBSCRIBER);
    const res = await get('/api/users/profile', {
      authorization,
      'x-user-id': 'spoofed',
      'x-user-role': 'admin',
    });
    expect(res.status).toBe(200);
    expect(stubs.last().headers).toMatchObject({
      authorization,
      'x-user-id': SUBSCRIBER.sub,
      'x-user-role': 'subscriber',
      'x-user-subscription-status': 'active',
    });
  });

  it('When a free user calls advanced dialogues, Then 403 SUBSCRIPTION_REQUIRED; a subscriber and an admin pass', async () => {
    const free = await get('/api/v1/dialogues/advanced', { authorization: bearer(USER) });
    expect(free.status).toBe(403);
    expect(await free.json()).toMatchObject({ success: false, error: { code: 'SUBSCRIPTION_REQUIRED' } });
    expect((await get('/api/v1/dialogues/advanced', { authorization: bearer(SUBSCRIBER) })).status).toBe(200);
    expect((await get('/api/v1/dialogues/advanced/x', { authorization: bearer(ADMIN) })).status).toBe(200);
    expect((await get('/api/v1/dialogues/basic', { authorization: bearer(USER) })).status).toBe(200);
  });

  it('When a non-admin calls an admin path, Then 403 FORBIDDEN; an admin passes', async () => {
    for (const who of [USER, SUBSCRIBER]) {
      const res = await get('/api/v1/admin/users', { authorization: bearer(who) });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('FORBIDDEN');
    }
    expect((await get('/api/v1/admin/users', { authorization: bearer(ADMIN) })).status).toBe(200);
  });
});
