import { makeEvent } from '@lingua/contracts';
import { BLACKLIST_KEY_PREFIX } from '@lingua/auth';
import { userModel } from '../src/data-access/user.model';
import { parseRefreshToken } from '../src/domain/sessions';
import { eventually, bearer, type Harness, ipHeader, newUser, openMail, startIdentity } from './harness';

// generous: the machine is shared and under load; nothing here depends on speed
jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => {
  h = await startIdentity();
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());

async function registered(overrides: Record<string, unknown> = {}) {
  const body = newUser(overrides);
  const res = await h.post('/api/v1/auth/register', body);
  expect(res.status).toBe(201);
  return { ...body, userId: res.body.data.userId as string, reg: res.body.data };
}

describe('Group A register', () => {
  it('When a guest registers with valid data, Then 201 carries the authentication data and user.created carries the device', async () => {
    const body = newUser({ preferredLanguage: 'de', nativeLanguage: 'en', deviceId: 'device-abc-1' });
    const res = await h.post('/api/v1/auth/register', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      message: expect.any(String),
      meta: { timestamp: expect.any(String), requestId: expect.any(String), api_version: 'v1' },
    });
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'accessToken',
        'email',
        'expiresIn',
        'isNewUser',
        'refreshToken',
        'userId',
        'userRole',
        'username',
      ].sort(),
    );
    expect(data).toMatchObject({
      email: body.email,
      username: body.username,
      isNewUser: true,
      userRole: 'user',
      expiresIn: 3600,
    });
    expect(data.userId).toMatch(/^[0-9a-f-]{36}$/);
    const header = JSON.parse(Buffer.from(data.accessToken.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decode(data.accessToken);
    // the spec's claims plus jti (RFC 7519), which keeps sessions of the same second apart, and the
    // issuer and audience (iss, aud: JWT_ISSUER, JWT_AUDIENCE) the gateway requires
    expect(Object.keys(claims).sort()).toEqual([
      'aud',
      'email',
      'exp',
      'iat',
      'iss',
      'jti',
      'role',
      'sub',
      'subscription_status',
      'username',
    ]);
    expect(claims).toMatchObject({
      sub: data.userId,
      role: 'user',
      subscription_status: 'inactive',
      iss: 'lingua-identity',
      aud: 'lingua-api',
    });
    expect(claims.exp - claims.iat).toBe(3600);

    const stored = await userModel(h.service.deps.mongo.connection)
      .findById(data.userId)
      .select('+passwordHash')
      .lean();
    expect(stored?.passwordHash).toMatch(/^\$2b\$04\$/); // bcrypt with the configured cost (12 by default)
    expect(JSON.stringify(res.body)).not.toContain(stored!.passwordHash!);

    await eventually(() => {
      const created = h.events.find((e) => e.event === 'user.created' && e.data.userId === data.userId);
      expect(created?.data).toMatchObject({
        deviceId: 'device-abc-1',
        authProvider: 'password',
        preferredLanguage: 'de',
      });
      const verify = h.events.find(
        (e) => e.event === 'user.email_verification_requested' && e.data.userId === data.userId,
      );
      expect(openMail(verify as { event: string; data: { mail: string } })).toMatchObject({
        email: body.email,
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/verify-email\?token=/),
      });
    });
  });

  it('When fields break the rules, Then 400 VALIDATION_ERROR maps each field to its messages', async () => {
    const res = await h.post('/api/v1/auth/register', {
      email: 'not-an-email',
      password: 'short',
      username: 'a!',
      preferredLanguage: 'english',
    });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const d = res.body.error.details;
    for (const field of ['email', 'password', 'username', 'preferredLanguage']) {
      expect(Array.isArray(d[field])).toBe(true);
      expect(d[field].length).toBeGreaterThan(0);
    }
    expect(d.password).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/8/),
        expect.stringMatching(/upper/),
        expect.stringMatching(/digit/),
      ]),
    );
    const zz = await h.post('/api/v1/auth/register', newUser({ preferredLanguage: 'zz' }));
    expect(zz.status).toBe(400);
    expect(zz.body.error.details.preferredLanguage).toBeDefined();
    // ICU's DisplayNames throws RangeError on these: a 400, never a 500
    for (const preferredLanguage of ['word', 'https://example.com/x', '']) {
      const odd = await h.post('/api/v1/auth/register', newUser({ preferredLanguage }));
      expect(odd.status).toBe(400);
      expect(odd.body.error.details.preferredLanguage).toBeDefined();
    }
  });

  it('When the e-mail or the username is taken, Then 409 EMAIL_EXISTS or USERNAME_EXISTS', async () => {
    const first = await registered();
    const dupEmail = await h.post('/api/v1/auth/register', newUser({ email: first.email.toUpperCase() }));
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body.error.code).toBe('EMAIL_EXISTS');
    const dupName = await h.post(
      '/api/v1/auth/register',
      newUser({ username: first.username.toUpperCase() }),
    );
    expect(dupName.status).toBe(409);
    expect(dupName.body.error.code).toBe('USERNAME_EXISTS');
  });
});

describe('Group A login, lockout and rate limit', () => {
  it('When the password is right, Then 200 carries role, subscription status and lastLoginAt', async () => {
    const u = await registered();
    const res = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      userId: u.userId,
      email: u.email,
      username: u.username,
      userRole: 'user',
      subscriptionStatus: 'inactive',
      expiresIn: 3600,
      lastLoginAt: h.clock.now().toISOString(),
    });
    expect(res.body.data.refreshToken).toEqual(expect.any(String));
    const cookies = res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('lingua_refresh='))).toMatch(
      /HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/,
    );
  });

  it('When five attempts fail, Then the fifth reports the lockout, the sixth is 423 even with the right password, and the lock ends after 15 minutes', async () => {
    const u = await registered();
    const ip = ipHeader();
    for (let i = 1; i <= 5; i++) {
      if (i === 5) h.clock.advance(60_000); // stay under the per-IP limit of 5 a minute
      const res = await h.post('/api/v1/auth/login', { email: u.email, password: 'Wrong1234' }, ip);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
      expect(res.body.error.details.attemptCount).toBe(i);
      if (i < 5) expect(res.body.error.details.lockoutTime).toBeNull();
      else
        expect(new Date(res.body.error.details.lockoutTime).getTime()).toBe(
          h.clock.now().getTime() + 15 * 60_000,
        );
    }
    const locked = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(locked.status).toBe(423);
    expect(locked.body.error.code).toBe('ACCOUNT_LOCKED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    h.clock.advance(14 * 60_000);
    expect(
      (await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader())).status,
    ).toBe(423);
    h.clock.advance(60_000 + 1);
    const after = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(after.status).toBe(200);
    // the counter starts again after a success
    const again = await h.post('/api/v1/auth/login', { email: u.email, password: 'Wrong1234' }, ipHeader());
    expect(again.body.error.details.attemptCount).toBe(1);
  });

  it('When an unknown e-mail fails, Then it looks exactly like a wrong password', async () => {
    const res = await h.post(
      '/api/v1/auth/login',
      { email: newUser().email, password: 'Whatever1' },
      ipHeader(),
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      details: { attemptCount: 1, lockoutTime: null },
    });
  });

  it('When one IP tries a sixth login within a minute, Then 429 with Retry-After, and the next minute is allowed', async () => {
    const u = await registered();
    const ip = ipHeader();
    for (let i = 0; i < 5; i++)
      expect((await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ip)).status).toBe(
        200,
      );
    const limited = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // another IP is not affected
    expect(
      (await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader())).status,
    ).toBe(200);
    h.clock.advance(60_000);
    expect((await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ip)).status).toBe(
      200,
    );
  });
});

describe('Group A refresh and logout', () => {
  it('When a refresh token is used, Then it rotates, and re-using the old one revokes the whole family', async () => {
    const u = await registered();
    const first = u.reg.refreshToken as string;
    const r1 = await h.post('/api/v1/auth/refresh', undefined, bearer(first));
    expect(r1.status).toBe(200);
    expect(Object.keys(r1.body.data).sort()).toEqual([
      'accessToken',
      'expiresIn',
      'refreshToken',
      'tokenType',
    ]);
    expect(r1.body.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600 });
    const second = r1.body.data.refreshToken as string;
    expect(second).not.toBe(first);

    const reuse = await h.post('/api/v1/auth/refresh', undefined, bearer(first));
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('TOKEN_BLACKLISTED');
    // the legitimate holder's newer token died with the family
    const afterReuse = await h.post('/api/v1/auth/refresh', undefined, bearer(second));
    expect(afterReuse.status).toBe(401);
    expect(afterReuse.body.error.code).toBe('TOKEN_BLACKLISTED');
    // and so did every access token the sign-in issued: a thief's copy stops working at once
    for (const access of [u.reg.accessToken as string, r1.body.data.accessToken as string]) {
      const res = await h.request('GET', '/api/users/profile', { headers: bearer(access) });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH001');
    }
  });

  it('When a sign-in is refreshed normally, Then its earlier access token keeps working until it expires', async () => {
    const u = await registered();
    const r1 = await h.post('/api/v1/auth/refresh', undefined, bearer(u.reg.refreshToken as string));
    expect(r1.status).toBe(200);
    const res = await h.request('GET', '/api/users/profile', {
      headers: bearer(u.reg.accessToken as string),
    });
    expect(res.status).toBe(200);
  });

  it('When the bearer holds an access token or garbage, Then refresh answers 401 TOKEN_INVALID; without any token 401', async () => {
    const u = await registered();
    const wrong = await h.post('/api/v1/auth/refresh', undefined, bearer(u.reg.accessToken));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('TOKEN_INVALID');
    const none = await h.post('/api/v1/auth/refresh');
    expect(none.status).toBe(401);
  });

  it('When 30 days pass, Then the refresh token has expired; with rememberMe false it lasts 24 hours', async () => {
    const u = await registered();
    const short = await h.post(
      '/api/v1/auth/login',
      { email: u.email, password: u.password, rememberMe: false },
      ipHeader(),
    );
    expect(short.status).toBe(200);
    const cookie = short.headers.getSetCookie().find((c) => c.startsWith('lingua_refresh='))!;
    expect(cookie).not.toMatch(/Max-Age|Expires/i); // a browser-session cookie
    h.clock.advance(24 * 3600_000 + 1000);
    const shortRes = await h.post('/api/v1/auth/refresh', undefined, bearer(short.body.data.refreshToken));
    expect(shortRes.body.error.code).toBe('TOKEN_EXPIRED');
    h.clock.advance(6 * 24 * 3600_000);
    // registration's token (30 days) still works after 7 days and rotates
    const ok = await h.post('/api/v1/auth/refresh', undefined, bearer(u.reg.refreshToken));
    expect(ok.status).toBe(200);
    h.clock.advance(30 * 24 * 3600_000 + 1000);
    const expired = await h.post('/api/v1/auth/refresh', undefined, bearer(ok.body.data.refreshToken));
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('TOKEN_EXPIRED');
  });

  it('When the refresh token comes from the cookie, Then the CSRF double-submit header is required', async () => {
    const u = await registered();
    const login = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    const jar = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = login.headers.get('x-csrf-token')!;
    expect(jar).toContain(`lingua_csrf=${csrf}`);
    const without = await h.post('/api/v1/auth/refresh', undefined, { cookie: jar });
    expect(without.status).toBe(403);
    const forged = await h.post('/api/v1/auth/refresh', undefined, { cookie: jar, 'x-csrf-token': 'guess' });
    expect(forged.status).toBe(403);
    const ok = await h.post('/api/v1/auth/refresh', undefined, { cookie: jar, 'x-csrf-token': csrf });
    expect(ok.status).toBe(200);
    expect(ok.headers.getSetCookie().find((c) => c.startsWith('lingua_refresh='))).toContain(
      ok.body.data.refreshToken,
    );
  });

  it('When a user logs out, Then the access token is blacklisted in Redis until it expires and later use is 401 TOKEN_BLACKLISTED', async () => {
    const u = await registered();
    const token = u.reg.accessToken as string;
    const out = await h.post('/api/v1/auth/logout', undefined, bearer(token));
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ loggedOut: true, tokenBlacklisted: true });
    // this token's entry only: suites running beside this one blacklist tokens in the same Redis
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string };
    const ttl = await h.service.deps.redis!.client.ttl(`${BLACKLIST_KEY_PREFIX}${jti}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3600);
    const again = await h.post('/api/v1/auth/logout', undefined, bearer(token));
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('TOKEN_BLACKLISTED');
    const profile = await h.request('GET', '/api/users/profile', { headers: bearer(token) });
    expect(profile.status).toBe(401);
    expect(profile.body.error.code).toBe('AUTH001');
  });
});

describe('independent sessions (jti)', () => {
  // the harness clock stands still: every token below is signed in the same second
  const login = async (u: { email: string; password: string }) => {
    const res = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(res.status).toBe(200);
    return res.body.data as { accessToken: string; refreshToken: string };
  };
  const profile = (token: string) => h.request('GET', '/api/users/profile', { headers: bearer(token) });

  it('When a user signs in on two phones in the same second and logs out on one, Then the other still works', async () => {
    const u = await registered();
    const phone = await login(u);
    const tablet = await login(u);
    expect(decode(phone.accessToken).iat).toBe(decode(tablet.accessToken).iat);
    const out = await h.post('/api/v1/auth/logout', undefined, bearer(phone.accessToken));
    expect(out.status).toBe(200);
    expect((await profile(phone.accessToken)).status).toBe(401);
    expect((await profile(tablet.accessToken)).status).toBe(200);
    const refreshed = await h.post('/api/v1/auth/refresh', undefined, bearer(tablet.refreshToken));
    expect(refreshed.status).toBe(200);
  });

  it('When a refresh token is reused and the user signs in again at once, Then the new sign-in works', async () => {
    const u = await registered();
    const first = await login(u);
    const rotated = await h.post('/api/v1/auth/refresh', undefined, bearer(first.refreshToken));
    expect(rotated.status).toBe(200);
    const reuse = await h.post('/api/v1/auth/refresh', undefined, bearer(first.refreshToken));
    expect(reuse.body.error.code).toBe('TOKEN_BLACKLISTED');
    expect((await profile(rotated.body.data.accessToken)).status).toBe(401);

    const fresh = await login(u);
    expect((await profile(fresh.accessToken)).status).toBe(200);
    expect((await h.post('/api/v1/auth/refresh', undefined, bearer(fresh.refreshToken))).status).toBe(200);
  });

  it('When tokens are issued, Then every access and refresh token carries its own jti', async () => {
    const u = await registered();
    const a = await login(u);
    const b = await login(u);
    const c = (await h.post('/api/v1/auth/refresh', undefined, bearer(a.refreshToken))).body.data as {
      accessToken: string;
      refreshToken: string;
    };
    const ids = [a, b, c].flatMap((t) => [decode(t.accessToken).jti, parseRefreshToken(t.refreshToken)?.jti]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('subscription events', () => {
  it('When subscriptions reports a new subscription, Then the role follows and the next token carries it', async () => {
    const u = await registered();
    const event = makeEvent('subscription.created', {
      subscriptionId: 'sub-1',
      userId: u.userId,
      deviceId: null,
      planId: 'monthly',
      status: 'active',
      platform: 'sandbox',
      expiresAt: new Date(Date.now() + 30 * 86400_000).toISOString(),
      autoRenewal: true,
      isTrialPeriod: false,
      userRole: 'subscriber',
      userSubscriptionStatus: 'active',
    });
    await h.service.deps.publisher.publish(event);
    await eventually(async () => {
      const doc = await userModel(h.service.deps.mongo.connection).findById(u.userId).lean();
      expect(doc).toMatchObject({ role: 'subscriber', subscriptionStatus: 'active' });
    });
    const r = await h.post('/api/v1/auth/refresh', undefined, bearer(u.reg.refreshToken));
    expect(decode(r.body.data.accessToken)).toMatchObject({
      role: 'subscriber',
      subscription_status: 'active',
    });

    // an older event arriving late does not undo the newer state
    const stale = makeEvent(
      'subscription.updated',
      {
        ...event.data,
        status: 'expired',
        userRole: 'user',
        userSubscriptionStatus: 'inactive',
        change: 'expired',
      },
      { now: new Date(Date.now() - 3600_000) },
    );
    await h.service.deps.publisher.publish(stale);
    await eventually(() => expect(h.events.some((e) => e.id === stale.id)).toBe(true));
    // identity's consumer has handled (acked) everything published so far, the stale event included
    await eventually(async () => {
      const info = await h.service.deps.nats.jsm.consumers.info(
        h.service.deps.bus.streamName,
        'identity-subscription-changed',
      );
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
    const doc = await userModel(h.service.deps.mongo.connection).findById(u.userId).lean();
    expect(doc?.role).toBe('subscriber');
  });
});
