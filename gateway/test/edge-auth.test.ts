import { createHmac, generateKeyPairSync, sign as rsaSign } from 'node:crypto';
import {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  createAccessTokens,
  createAssertionSigner,
  createAssertionVerifier,
  devAssertionKey,
} from '@lingua/auth';
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
    // what a client could try: headers, and an assertion signed with the readable development key
    const spoofed = createAssertionSigner(
      Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [a, devAssertionKey(a)])) as Parameters<
        typeof createAssertionSigner
      >[0],
    ).sign('identity', { ...tokens.sign(ADMIN).claims, sub: 'spoofed' });
    const res = await get('/api/users/profile', {
      authorization,
      'x-user-id': 'spoofed',
      'x-user-role': 'admin',
      [ASSERTION_HEADER]: spoofed,
    });
    expect(res.status).toBe(200);
    const seen = stubs.last().headers;
    expect(seen).toMatchObject({
      authorization,
      'x-user-id': SUBSCRIBER.sub,
      'x-user-role': 'subscriber',
      'x-user-subscription-status': 'active',
    });
    // the assertion is the gateway's own, for identity, with identity's key (this gateway runs on the development keys)
    expect(seen[ASSERTION_HEADER]).not.toBe(spoofed);
    const claims = createAssertionVerifier('identity', devAssertionKey('identity')).verify(
      seen[ASSERTION_HEADER] as string,
    );
    expect(claims).toMatchObject({ sub: SUBSCRIBER.sub, role: 'subscriber' });
    expect(() =>
      createAssertionVerifier('flashcards', devAssertionKey('flashcards')).verify(
        seen[ASSERTION_HEADER] as string,
      ),
    ).toThrow(/assertion refused/);
  });

  it('When a guest calls a public operation with a forged assertion, Then the service gets none', async () => {
    const res = await get('/api/v1/subscriptions/plans', { [ASSERTION_HEADER]: 'v1.e30.AAAA' });
    expect(res.status).toBe(200);
    expect(stubs.last().headers[ASSERTION_HEADER]).toBeUndefined();
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

// Classic JWT attacks, refused where client tokens are verified: here, at the edge (services never
// see a client token as identity; docs/adr/0001-internal-assertions.md). Group C envelope: AUTH001.
describe('access token attacks at the edge', () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const valid = () => tokens.sign(USER).token;
  const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
  const hs256 = (header: unknown, payload: unknown, secret: string | Buffer) => {
    const input = `${b64(header)}.${b64(payload)}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  const profileWith = async (token: string) => {
    const before = stubs.seen.length;
    const res = await get('/api/users/profile', { authorization: `Bearer ${token}` });
    return { status: res.status, code: (await res.json()).error?.code, reached: stubs.seen.length > before };
  };
  const refused = { status: 401, code: 'AUTH001', reached: false };

  it('When the token is valid, Then the profile passes (the baseline the attacks change)', async () => {
    expect(await profileWith(valid())).toMatchObject({ status: 200, reached: true });
  });

  it('When alg is none, Then 401 AUTH001', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsOf(valid()))}.`;
    expect(await profileWith(token)).toEqual(refused);
  });

  it('When the token is RS256-signed, or HS256-signed with the RSA public key as secret, Then 401 AUTH001', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claimsOf(valid()))}`;
    const rs = `${input}.${rsaSign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
    expect(await profileWith(rs)).toEqual(refused);
    const pem = publicKey.export({ type: 'spki', format: 'pem' });
    expect(await profileWith(hs256({ alg: 'HS256', typ: 'JWT' }, claimsOf(valid()), pem))).toEqual(refused);
  });

  it('When the payload is tampered with (role admin), Then 401 AUTH001', async () => {
    const [header, , signature] = valid().split('.');
    const tampered = `${header}.${b64({ ...claimsOf(valid()), role: 'admin' })}.${signature}`;
    expect(await profileWith(tampered)).toEqual(refused);
  });

  it('When the token is signed with another secret, Then 401 AUTH001; with ours, 200', async () => {
    const claims = claimsOf(valid());
    expect(await profileWith(hs256({ alg: 'HS256', typ: 'JWT' }, claims, `${SECRET}-but-not-ours`))).toEqual(
      refused,
    );
    // the same construction with the real secret is accepted: the test can tell the difference
    expect(await profileWith(hs256({ alg: 'HS256', typ: 'JWT' }, claims, SECRET))).toMatchObject({
      status: 200,
    });
  });
});

describe('the issuer and audience the gateway is configured with', () => {
  it("When the deployment names its own JWT_ISSUER and JWT_AUDIENCE, Then a token carrying the defaults is refused and identity's is accepted", async () => {
    const parties = { issuer: 'https://id.lingua.example', audience: 'lingua-mobile' };
    const own = await gatewayWith({
      ...(await stubServices(stubs)),
      JWT_ISSUER: parties.issuer,
      JWT_AUDIENCE: parties.audience,
    });
    try {
      const call = (authorization: string) =>
        fetch(`${own.url}/api/v1/subscriptions/history`, { headers: { authorization } });
      expect((await call(bearer(USER))).status).toBe(401);
      const issued = createAccessTokens(SECRET, undefined, parties).sign(USER).token;
      expect((await call(`Bearer ${issued}`)).status).toBe(200);
      const otherAudience = createAccessTokens(SECRET, undefined, { ...parties, audience: 'elsewhere' });
      expect((await call(`Bearer ${otherAudience.sign(USER).token}`)).status).toBe(401);
    } finally {
      await own.stop();
    }
  });
});
