import express from 'express';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, TestClock } from '@lingua/testing';
import { isAppError } from '@lingua/errors';
import { createAccessTokens } from './access-tokens';
import { createTokenBlacklist } from './token-blacklist';
import { authenticate, currentUser, requireRole } from './authenticate';

const SECRET = 'a-test-secret-that-is-long-enough-123456';
const user = {
  sub: 'u1',
  email: 'a@b.co',
  username: 'ann',
  role: 'user',
  subscription_status: 'inactive',
} as const;

describe('authenticate middleware with the Redis blacklist', () => {
  let redis: RedisHandle;
  let base: string;
  let close: () => void;
  const clock = new TestClock(new Date());
  const tokens = createAccessTokens(SECRET, clock);

  beforeAll(async () => {
    redis = await connectRedis(redisUrl());
    const blacklist = createTokenBlacklist(redis.client, clock);
    const app = express();
    app.get('/me', authenticate({ tokens, blacklist }), (_req, res) => res.json(currentUser(res)));
    app.get('/guest', authenticate({ tokens, blacklist, optional: true }), (_req, res) =>
      res.json({ user: res.locals.user ?? null }),
    );
    app.get('/admin', authenticate({ tokens, blacklist }), requireRole('admin'), (_req, res) => res.json({}));
    app.post('/logout', authenticate({ tokens, blacklist }), async (_req, res) => {
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
    fetch(base + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('When a valid token is sent, Then the claims reach the handler', async () => {
    const res = await get('/me', tokens.sign(user).token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: 'u1', role: 'user' });
  });

  it('When the header is missing or malformed, Then 401 (guests pass optional routes)', async () => {
    expect((await get('/me')).status).toBe(401);
    expect(await (await get('/guest')).json()).toEqual({ user: null });
    const bad = await fetch(base + '/me', { headers: { authorization: 'Basic abc' } });
    expect(await bad.json()).toEqual({ code: 'TOKEN_INVALID' });
    expect((await get('/guest', 'garbage')).status).toBe(401);
  });

  it('When a token is forged, tampered, unsigned or expired, Then the matching 401 code', async () => {
    const forged = jwt.sign({ ...user }, 'another-secret-that-is-long-enough-0000', { expiresIn: 60 });
    const none = jwt.sign({ ...user, exp: Math.floor(Date.now() / 1000) + 60 }, '', { algorithm: 'none' });
    const good = tokens.sign(user).token.split('.');
    const tampered = [
      good[0],
      Buffer.from(JSON.stringify({ ...user, role: 'admin' })).toString('base64url'),
      good[2],
    ].join('.');
    for (const t of [forged, none, tampered])
      expect(await (await get('/me', t)).json()).toEqual({ code: 'TOKEN_INVALID' });
    const expiring = tokens.sign(user, 10).token;
    clock.advance(11_000);
    expect(await (await get('/me', expiring)).json()).toEqual({ code: 'TOKEN_EXPIRED' });
  });

  it('When a token is blacklisted, Then every later use is TOKEN_BLACKLISTED and the key expires with the token', async () => {
    const { token, claims } = tokens.sign({ ...user, sub: `u-${Date.now()}` });
    expect(
      (await fetch(base + '/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(200);
    expect(await (await get('/me', token)).json()).toEqual({ code: 'TOKEN_BLACKLISTED' });
    // this token's own key (other suites share the Redis and its blacklist keys come and go)
    const ttl = await redis.client.ttl(`auth:blacklist:${claims.jti}`);
    expect(ttl).toBeLessThanOrEqual(claims.exp - Math.floor(clock.now().getTime() / 1000));
    expect(ttl).toBeGreaterThan(0);
  });

  it('When one of two tokens signed in the same second is revoked, Then the other still works', async () => {
    const same = { ...user, sub: `u-${Date.now()}` };
    const phone = tokens.sign(same).token;
    const tablet = tokens.sign(same).token; // the test clock has not moved: same iat and exp
    const out = await fetch(base + '/logout', {
      method: 'POST',
      headers: { authorization: `Bearer ${phone}` },
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
