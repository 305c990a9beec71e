import type { AnyDomainEvent } from '@lingua/contracts';
import { eventually, bearer, type Harness, ipHeader, newUser, openMail, startIdentity } from './harness';

// generous: the machine is shared and under load; nothing here depends on speed
jest.setTimeout(180_000);

// This instance requires a verified e-mail before password sign-in (IDENTITY_REQUIRE_EMAIL_VERIFICATION).
let h: Harness;
beforeAll(async () => {
  h = await startIdentity({
    IDENTITY_REQUIRE_EMAIL_VERIFICATION: 'true',
    IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.test',
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const tokenFrom = (url: string) => new URL(url).searchParams.get('token')!;
async function eventFor<N extends AnyDomainEvent['event']>(event: N, userId: string) {
  let found: AnyDomainEvent | undefined;
  await eventually(() => {
    found = [...h.events].reverse().find((e) => e.event === event && e.data.userId === userId);
    expect(found).toBeDefined();
  });
  return found as Extract<AnyDomainEvent, { event: N }>;
}

async function registerAndVerify() {
  const u = newUser();
  const reg = await h.post('/api/auth/register', { ...u, confirmPassword: u.password });
  expect(reg.status).toBe(201);
  const userId = reg.body.data.user.id as string;
  const mail = await eventFor('user.email_verification_requested', userId);
  const verified = await h.post('/api/auth/verify-email', { token: tokenFrom(openMail(mail).url) });
  expect(verified.status).toBe(200);
  return { ...u, userId };
}

const login = (email: string, password: string) => h.post('/api/auth/login', { email, password }, ipHeader());

describe('Group C register, verification and login', () => {
  it('When passwords do not match, Then 400 VAL001 names confirmPassword', async () => {
    const u = newUser();
    const res = await h.post('/api/auth/register', { ...u, confirmPassword: 'Other1234' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatchObject({
      code: 'VAL001',
      details: { confirmPassword: [expect.any(String)] },
    });
    expect(res.body.meta).toMatchObject({ requestId: expect.any(String), timestamp: expect.any(String) });
  });

  it('When the e-mail is registered again, Then 409 RES002', async () => {
    const u = newUser();
    await h.post('/api/auth/register', { ...u, confirmPassword: u.password });
    const again = await h.post('/api/auth/register', {
      ...newUser({ email: u.email }),
      confirmPassword: u.password,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('RES002');
  });

  it('When an unverified user signs in, Then 403 EMAIL_NOT_VERIFIED; after verify-email (single use) sign-in works', async () => {
    const u = newUser();
    const reg = await h.post('/api/auth/register', { ...u, confirmPassword: u.password });
    expect(reg.body.data).toEqual({
      user: { id: expect.any(String), email: u.email, username: u.username },
      message: expect.any(String),
    });
    const blocked = await login(u.email, u.password);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('EMAIL_NOT_VERIFIED');

    const mail = await eventFor('user.email_verification_requested', reg.body.data.user.id);
    expect(openMail(mail).url.startsWith('https://app.lingua.test/verify-email?token=')).toBe(true);
    const verified = await h.post('/api/auth/verify-email', { token: tokenFrom(openMail(mail).url) });
    expect(verified.body.data).toMatchObject({ message: expect.any(String), user: { emailVerified: true } });
    const reused = await h.post('/api/auth/verify-email', { token: tokenFrom(openMail(mail).url) });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe('VAL002');

    const ok = await login(u.email, u.password);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      user: { id: reg.body.data.user.id, email: u.email, emailVerified: true },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 3600,
    });
    expect(JSON.stringify(ok.body)).not.toMatch(/passwordHash|\$2b\$/);
  });

  it('When the password is wrong, Then 401 AUTH003 with the attempt count', async () => {
    const u = await registerAndVerify();
    const res = await login(u.email, 'Wrong1234');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({
      code: 'AUTH003',
      details: { attemptCount: 1, lockoutTime: null },
    });
  });
});

describe('Group C refresh and logout', () => {
  it('When refreshing with the body token, Then rotation; a reused token is AUTH001 and kills the family', async () => {
    const u = await registerAndVerify();
    const s = (await login(u.email, u.password)).body.data;
    const r = await h.post('/api/auth/refresh', { refreshToken: s.refreshToken });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken']);
    const reuse = await h.post('/api/auth/refresh', { refreshToken: s.refreshToken });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('AUTH001');
    expect((await h.post('/api/auth/refresh', { refreshToken: r.body.data.refreshToken })).status).toBe(401);
    const missing = await h.post('/api/auth/refresh', {});
    expect(missing.status).toBe(400);
  });

  it('When logging out with a refresh token, Then that session ends; with allDevices every session ends', async () => {
    const u = await registerAndVerify();
    // tokens carry only the spec's claims, so two sign-ins in the same second share an access token
    const a = (await login(u.email, u.password)).body.data;
    h.clock.advance(1000);
    const b = (await login(u.email, u.password)).body.data;
    h.clock.advance(1000);
    const c = (await login(u.email, u.password)).body.data;
    const one = await h.post('/api/auth/logout', { refreshToken: a.refreshToken }, bearer(a.accessToken));
    expect(one.status).toBe(200);
    expect(one.body.data.message).toEqual(expect.any(String));
    expect((await h.post('/api/auth/refresh', { refreshToken: a.refreshToken })).status).toBe(401);
    expect((await h.post('/api/auth/refresh', { refreshToken: b.refreshToken })).status).toBe(200);
    // the logged-out access token is blacklisted
    expect((await h.post('/api/auth/logout', {}, bearer(a.accessToken))).body.error.code).toBe('AUTH001');

    const all = await h.post('/api/auth/logout', { allDevices: true }, bearer(c.accessToken));
    expect(all.status).toBe(200);
    expect((await h.post('/api/auth/refresh', { refreshToken: c.refreshToken })).status).toBe(401);
  });
});

describe('Account e-mail events on the stream', () => {
  // every subscriber of events.> can read the stream for 7 days: a live link there would let any
  // of them verify an address or take over an account
  it('When verification and reset are requested, Then the published events carry neither token, link nor address in clear', async () => {
    const u = await registerAndVerify();
    await h.post('/api/auth/forgot-password', { email: u.email });
    const verify = await eventFor('user.email_verification_requested', u.userId);
    const reset = await eventFor('user.password_reset_requested', u.userId);
    const secrets = [verify, reset].flatMap((e) => {
      const url = openMail(e).url;
      return [tokenFrom(url), encodeURIComponent(tokenFrom(url)), url];
    });
    const raw = await eventually(() => {
      const mine = h.rawEvents.filter((m) => m.includes(verify.id) || m.includes(reset.id));
      expect(mine).toHaveLength(2);
      return mine;
    });
    for (const message of raw) {
      for (const secret of secrets) expect(message).not.toContain(secret);
      expect(message.toLowerCase()).not.toContain(u.email.toLowerCase());
    }
  });
});

describe('Group C one-time tokens under concurrency', () => {
  // no lock: the redemption is one conditional update (usedAt: null -> now) on the database
  it('When one verification token is redeemed by many requests at once, Then exactly one succeeds', async () => {
    const u = newUser();
    const reg = await h.post('/api/auth/register', { ...u, confirmPassword: u.password });
    expect(reg.status).toBe(201);
    const mail = await eventFor('user.email_verification_requested', reg.body.data.user.id);
    const token = tokenFrom(openMail(mail).url);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => h.post('/api/auth/verify-email', { token })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    expect(replies.filter((r) => r.status === 400).every((r) => r.body.error.code === 'VAL002')).toBe(true);
  });
});

describe('Group C password reset', () => {
  it('When a reset link is used, Then the password changes, sessions end, and the link works once', async () => {
    const u = await registerAndVerify();
    const session = (await login(u.email, u.password)).body.data;
    await h.post('/api/auth/forgot-password', { email: u.email.toUpperCase() });
    const mail = await eventFor('user.password_reset_requested', u.userId);
    expect(openMail(mail).url.startsWith('https://app.lingua.test/reset-password?token=')).toBe(true);
    expect(new Date(mail.data.expiresAt).getTime()).toBe(h.clock.now().getTime() + 15 * 60_000);
    const token = tokenFrom(openMail(mail).url);

    const weak = await h.post('/api/auth/reset-password', {
      token,
      newPassword: 'weak',
      confirmPassword: 'weak',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.code).toBe('VAL001');

    const res = await h.post('/api/auth/reset-password', {
      token,
      newPassword: 'Changed123',
      confirmPassword: 'Changed123',
    });
    expect(res.status).toBe(200);
    expect((await login(u.email, u.password)).status).toBe(401);
    expect((await login(u.email, 'Changed123')).status).toBe(200);
    expect((await h.post('/api/auth/refresh', { refreshToken: session.refreshToken })).status).toBe(401);

    const again = await h.post('/api/auth/reset-password', {
      token,
      newPassword: 'Changed456',
      confirmPassword: 'Changed456',
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('VAL002');
  });

  it('When a reset link is older than 15 minutes, Then it no longer works', async () => {
    const u = await registerAndVerify();
    await h.post('/api/auth/forgot-password', { email: u.email });
    const mail = await eventFor('user.password_reset_requested', u.userId);
    h.clock.advance(15 * 60_000 + 1000);
    const res = await h.post('/api/auth/reset-password', {
      token: tokenFrom(openMail(mail).url),
      newPassword: 'Changed123',
      confirmPassword: 'Changed123',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL002');
    expect((await login(u.email, u.password)).status).toBe(200);
  });
});
