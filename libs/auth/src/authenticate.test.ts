import express from 'express';
import type { AddressInfo } from 'node:net';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, TestClock } from '@lingua/testing';
import { isAppError } from '@lingua/errors';
import { createAccessTokens } from './access-tokens';
import { BLACKLIST_KEY_PREFIX, createTokenBlacklist } from './token-blacklist';
import { authenticate, currentUser, requireRole } from './authenticate';
import {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  createAssertionSigner,
  createAssertionVerifier,
} from './internal-assertion';

const SECRET = 'a-test-secret-that-is-long-enough-123456';
const keyOf = (aud: string) => `${aud}-assertion-key-long-enough-for-tests`;
const KEYS = Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [a, keyOf(a)])) as Record<
  (typeof ASSERTION_AUDIENCES)[number],
  string
>;
const user = {
  sub: 'u1',
  email: 'a@b.co',
  username: 'ann',
  role: 'user',
  subscription_status: 'inactive',
} as const;

describe("authenticate middleware (the gateway's assertions) with the Redis blacklist", () => {
  let redis: RedisHandle;
  let base: string;
  let close: () => void;
  const clock = new TestClock(new Date());
  // the gateway's side: it verifies client tokens and signs for the service (here: flashcards)
  const tokens = createAccessTokens(SECRET, clock);
  const signer = createAssertionSigner(KEYS, { clock });
  const assertions = createAssertionVerifier('flashcards', keyOf('flashcards'), { clock });
  /** What the gateway forwards for a client token it accepted. */
  const forwarded = (token: string) => ({
    authorization: `Bearer ${token}`,
    [ASSERTION_HEADER]: signer.sign('flashcards', tokens.verify(token)),
  });

  beforeAll(async () => {
    redis = await connectRedis(redisUrl());
    const blacklist = createTokenBlacklist(redis.client, clock);
    const app = express();
    app.get('/me', authenticate({ assertions, blacklist }), (_req, res) => res.json(currentUser(res)));
    app.get('/guest', authenticate({ assertions, blacklist, optional: true }), (_req, res) =>
      res.json({ user: res.locals.user ?? null }),
    );
    app.get('/admin', authenticate({ assertions, blacklist }), requireRole('admin'), (_req, res) =>
      res.json({}),
    );
    app.post('/logout', authenticate({ assertions, blacklist }), async (_req, res) => {
      await blacklist.revoke(currentUser(res).jti, currentUser(res).exp);
      res.json({});
    });
    app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(isAppError(err) ? err.status : 500).json({ code: isAppError(err) ? err.code : 'X' });
    });
    const server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(async () => {
    close();
    await redis.close();
  });

  const get = (path: string, token?: string) =>
    fetch(base + path, { headers: token ? forwarded(token) : {} });
  const raw = (path: string, headers: Record<string, string>) => fetch(base + path, { headers });

  it('When the gateway forwards a caller, Then the claims reach the handler', async () => {
    const res = await get('/me', tokens.sign(user).token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: 'u1', role: 'user' });
  });

  it('When nothing identifies the caller, Then 401 (guests pass optional routes)', async () => {
    expect((await get('/me')).status).toBe(401);
    expect(await (await get('/guest')).json()).toEqual({ user: null });
  });

  it('When a client token comes without the gateway (valid, even an admin one), Then 401 on every route', async () => {
    const admin = tokens.sign({ ...user, role: 'admin' }).token;
    for (const path of ['/me', '/guest', '/admin']) {
      const res = await raw(path, { authorization: `Bearer ${admin}` });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 'UNAUTHORIZED' });
    }
    // nor is a client token accepted in the assertion's place
    expect(await (await raw('/me', { [ASSERTION_HEADER]: admin })).json()).toEqual({ code: 'TOKEN_INVALID' });
  });

  it('When an assertion is for another service, signed with another key, tampered or malformed, Then TOKEN_INVALID', async () => {
    const claims = tokens.verify(tokens.sign(user).token);
    const forAi = signer.sign('ai', claims);
    // a key this service must not accept, even for its own audience (another service's key)
    const stolenKey = createAssertionSigner({ ...KEYS, flashcards: keyOf('notifications') }, { clock });
    const good = signer.sign('flashcards', claims);
    const [v, , mac] = good.split('.');
    const promoted = `${v}.${Buffer.from(
      JSON.stringify({ aud: 'flashcards', exp: claims.exp, c: { ...claims, role: 'admin' } }),
    ).toString('base64url')}.${mac}`;
    for (const assertion of [forAi, stolenKey.sign('flashcards', claims), promoted, 'v1.e30', 'garbage'])
      expect(await (await raw('/me', { [ASSERTION_HEADER]: assertion })).json()).toEqual({
        code: 'TOKEN_INVALID',
      });
  });

  it('When an assertion outlives its minute, Then TOKEN_INVALID; when the token itself expired, TOKEN_EXPIRED', async () => {
    const claims = tokens.verify(tokens.sign({ ...user, sub: `u-${Date.now()}` }).token);
    const assertion = signer.sign('flashcards', claims);
    expect((await raw('/me', { [ASSERTION_HEADER]: assertion })).status).toBe(200);
    clock.advance(61_000);
    expect(await (await raw('/me', { [ASSERTION_HEADER]: assertion })).json()).toEqual({
      code: 'TOKEN_INVALID',
    });
    const short = tokens.verify(tokens.sign(user, 10).token);
    const shortAssertion = signer.sign('flashcards', short); // never outlives the token
    clock.advance(11_000);
    expect(await (await raw('/me', { [ASSERTION_HEADER]: shortAssertion })).json()).toEqual({
      code: 'TOKEN_EXPIRED',
    });
  });

  it('When a token is blacklisted, Then every later use is TOKEN_BLACKLISTED and the key expires with the token', async () => {
    const { token, claims } = tokens.sign({ ...user, sub: `u-${Date.now()}` });
    expect((await fetch(base + '/logout', { method: 'POST', headers: forwarded(token) })).status).toBe(200);
    expect(await (await get('/me', token)).json()).toEqual({ code: 'TOKEN_BLACKLISTED' });
    // this token's own key (other suites share the Redis and its blacklist keys come and go)
    const ttl = await redis.client.ttl(`${BLACKLIST_KEY_PREFIX}${claims.jti}`);
    expect(ttl).toBeLessThanOrEqual(claims.exp - Math.floor(clock.now().getTime() / 1000));
    expect(ttl).toBeGreaterThan(0);
  });

  it('When one of two tokens signed in the same second is revoked, Then the other still works', async () => {
    const same = { ...user, sub: `u-${Date.now()}` };
    const phone = tokens.sign(same).token;
    const tablet = tokens.sign(same).token; // the test clock has not moved: same iat and exp
    const out = await fetch(base + '/logout', {
      method: 'POST',
      headers: forwarded(phone),
    });
    expect(out.status).toBe(200);
    expect(await (await get('/me', phone)).json()).toEqual({ code: 'TOKEN_BLACKLISTED' });
    expect((await get('/me', tablet)).status).toBe(200);
  });

  it('When a non-admin calls an admin route, Then 403', async () => {
    expect(await (await get('/admin', tokens.sign(user).token)).json()).toEqual({ code: 'FORBIDDEN' });
    expect((await get('/admin', tokens.sign({ ...user, role: 'admin' }).token)).status).toBe(200);
  });
});
