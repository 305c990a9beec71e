import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { DEV_JWT_SECRET } from '@lingua/auth';
import type { AnyDomainEvent } from '@lingua/contracts';
import { passwordHashDuration } from '@lingua/metrics';
import { APPLE_AUD, APPLE_ISS, eventually, GOOGLE_AUD, GOOGLE_ISS, newUser, openMail } from './harness';
import { type BehindGateway, fromAddress, startIdentityBehindGateway } from './behind-gateway';

// Attacks on identity (issue 35, items 3, 4, 6, 7 and 11) driven through the gateway, as a client
// makes them. generous: the machine is shared and under load; nothing here depends on speed.
jest.setTimeout(180_000);

let s: BehindGateway;
beforeAll(async () => {
  s = await startIdentityBehindGateway({
    // a real-ish cost, so that password checks take long enough to overlap
    IDENTITY_BCRYPT_COST: '10',
    IDENTITY_ACCOUNT_MAILS_PER_HOUR: '5',
    APPLE_NONCE_REQUIRED: 'true',
    GOOGLE_NONCE_REQUIRED: 'true',
  });
}, 180_000);
afterAll(async () => {
  await s?.stop();
});

const nowS = () => Math.floor(s.identity.clock.now().getTime() / 1000);
const subject = () => `${Date.now()}.${Math.random().toString(36).slice(2)}`;
const googleToken = (claims: Record<string, unknown>) =>
  s.identity.jwks.sign(claims, { iss: GOOGLE_ISS, aud: GOOGLE_AUD, iat: nowS(), expSeconds: nowS() + 600 });
const appleToken = (claims: Record<string, unknown>) =>
  s.identity.jwks.sign(claims, { iss: APPLE_ISS, aud: APPLE_AUD, iat: nowS(), expSeconds: nowS() + 600 });
const sha256Hex = (v: string) => createHash('sha256').update(v).digest('hex');

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A protected call the gateway decides alone (the ai upstream is down): 401 refused, 5xx admitted. */
const edgeStatus = async (accessToken: string) =>
  (await s.call('GET', '/api/ai/quota', { headers: bearer(accessToken) })).status;
/** The gateway's blacklist mirror learns a revocation by pub/sub: a moment after identity answers. */
const refusedAtEdge = (accessToken: string) =>
  eventually(async () => expect(await edgeStatus(accessToken)).toBe(401));

async function register(u = newUser()) {
  const res = await s.post('/api/v1/auth/register', u, fromAddress());
  expect(res.status).toBe(201);
  return { ...u, userId: res.body.data.userId as string, ...tokensOf(res) };
}
const tokensOf = (res: { body: { data: { accessToken: string; refreshToken: string } } }) => ({
  accessToken: res.body.data.accessToken,
  refreshToken: res.body.data.refreshToken,
});
const login = (email: string, password: string) =>
  s.post('/api/v1/auth/login', { email, password }, fromAddress());

async function eventFor<N extends AnyDomainEvent['event']>(event: N, userId: string) {
  let found: AnyDomainEvent | undefined;
  await eventually(() => {
    found = [...s.identity.events].reverse().find((e) => e.event === event && e.data.userId === userId);
    expect(found).toBeDefined();
  });
  return found as Extract<AnyDomainEvent, { event: N }>;
}
const tokenFrom = (url: string) => new URL(url).searchParams.get('token')!;

async function verifyEmail(userId: string) {
  const mail = await eventFor('user.email_verification_requested', userId);
  const res = await s.post('/api/auth/verify-email', { token: tokenFrom(openMail(mail).url) }, fromAddress());
  expect(res.status).toBe(200);
}

/** bcrypt comparisons so far, from the hasher's own metric (every compare is timed there). */
async function comparisons(): Promise<number> {
  const { values } = await passwordHashDuration.get();
  return values.find((v) => v.metricName?.endsWith('_count') && v.labels.operation === 'verify')?.value ?? 0;
}

describe('item 4: the lockout under a parallel burst', () => {
  it('When 50 wrong passwords for one account arrive at once from 50 addresses, Then at most 5 bcrypt comparisons run, the rest are 423, and then even the right password is 423', async () => {
    const u = await register();
    const before = await comparisons();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => login(u.email, `Wrong-password-${i}`)),
    );
    const compared = (await comparisons()) - before;
    const wrong = answers.filter((r) => r.status === 401);
    const locked = answers.filter((r) => r.status === 423);
    // a busy machine may shed part of the burst (503 with Retry-After) before any password is looked at
    const shed = answers.filter((r) => r.status === 503);
    expect(wrong.length + locked.length + shed.length).toBe(50);
    for (const r of shed) expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(compared).toBeLessThanOrEqual(5);
    expect(wrong.length).toBe(compared); // each comparison is one 401, nothing else compared
    expect(locked.length).toBeGreaterThanOrEqual(50 - 5 - shed.length);
    for (const r of locked) {
      expect(r.body.error.code).toBe('ACCOUNT_LOCKED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // with part of the burst shed, the remaining guesses of the window, one by one: 5 in all
    let guesses = wrong.length;
    while ((await login(u.email, 'Wrong-password-x')).status === 401) guesses++;
    expect(guesses).toBe(5);
    expect((await login(u.email, u.password)).status).toBe(423);
  });

  it('When wrong passwords are followed by the right one, Then it signs in and the count starts again', async () => {
    const u = await register();
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'Wrong-password-1')).status).toBe(401);
    expect((await login(u.email, u.password)).status).toBe(200);
    const next = await login(u.email, 'Wrong-password-1');
    expect(next.status).toBe(401);
    expect(next.body.error.details).toMatchObject({ attemptCount: 1, remainingAttempts: 4 });
  });
});

describe('item 6: social sign-in and accounts whose e-mail was never verified', () => {
  it('When an attacker registered the victim’s address and the victim signs in with Google, Then 403 EMAIL_NOT_VERIFIED and nothing is linked', async () => {
    const attacker = await register(); // the victim's address, never verified
    const victim = { sub: subject(), email: attacker.email, email_verified: true };
    const res = await s.post(
      '/api/v1/auth/google',
      { idToken: await googleToken({ ...victim, nonce: 'n-1' }), nonce: 'n-1' },
      fromAddress(),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('EMAIL_NOT_VERIFIED');
    expect(res.body.data?.accessToken).toBeUndefined();
    // Group C says the same with its own envelope
    const groupC = await s.post(
      '/api/auth/google',
      { idToken: await googleToken({ ...victim, nonce: 'n-2' }), nonce: 'n-2' },
      fromAddress(),
    );
    expect(groupC.status).toBe(403);
    expect(groupC.body.error.code).toBe('EMAIL_NOT_VERIFIED');
  });

  it('When the victim proves the address with a reset link, Then Google links to the account and the attacker’s sessions end', async () => {
    const attacker = await register();
    expect((await s.post('/api/auth/forgot-password', { email: attacker.email }, fromAddress())).status).toBe(
      200,
    );
    const mail = await eventFor('user.password_reset_requested', attacker.userId);
    const reset = await s.post(
      '/api/auth/reset-password',
      {
        token: tokenFrom(openMail(mail).url),
        newPassword: 'Victim-owns-1',
        confirmPassword: 'Victim-owns-1',
      },
      fromAddress(),
    );
    expect(reset.status).toBe(200);
    const google = await s.post(
      '/api/v1/auth/google',
      {
        idToken: await googleToken({
          sub: subject(),
          email: attacker.email,
          email_verified: true,
          nonce: 'n-3',
        }),
        nonce: 'n-3',
      },
      fromAddress(),
    );
    expect(google.status).toBe(200);
    expect(google.body.data).toMatchObject({ userId: attacker.userId, isNewUser: false });
    await refusedAtEdge(attacker.accessToken);
  });

  it('When Apple links to a verified account, Then the account’s other sessions end at once', async () => {
    const owner = await register();
    await verifyEmail(owner.userId);
    const other = tokensOf(await login(owner.email, owner.password));
    expect(await edgeStatus(other.accessToken)).not.toBe(401);
    const rawNonce = 'apple-nonce-1';
    const apple = await s.post(
      '/api/v1/auth/apple',
      {
        identityToken: await appleToken({
          sub: subject(),
          email: owner.email,
          email_verified: 'true',
          nonce: sha256Hex(rawNonce),
        }),
        nonce: rawNonce,
      },
      fromAddress(),
    );
    expect(apple.status).toBe(200);
    expect(apple.body.data).toMatchObject({ userId: owner.userId, isNewUser: false });
    await refusedAtEdge(other.accessToken);
    await refusedAtEdge(owner.accessToken);
    const refresh = await s.post('/api/v1/auth/refresh', undefined, bearer(other.refreshToken));
    expect(refresh.status).toBe(401);
    // the new sign-in works
    expect(await edgeStatus(apple.body.data.accessToken)).not.toBe(401);
  });
});

describe('item 7: ending a session ends it everywhere', () => {
  it('When the app logs out (Group A, access token only), Then that sign-in’s refresh token is refused: 401', async () => {
    const u = await register();
    const signIn = tokensOf(await login(u.email, u.password));
    expect((await s.post('/api/v1/auth/logout', undefined, bearer(signIn.accessToken))).status).toBe(200);
    const refresh = await s.post('/api/v1/auth/refresh', undefined, bearer(signIn.refreshToken));
    expect(refresh.status).toBe(401);
    expect(refresh.body.error.code).toBe('TOKEN_BLACKLISTED');
    // the user's other sign-in (registration) goes on
    expect((await s.post('/api/v1/auth/refresh', undefined, bearer(u.refreshToken))).status).toBe(200);
  });

  it('When a Group C client logs out without its refresh token, Then that sign-in’s refresh token is refused: 401 AUTH001', async () => {
    const u = await register();
    const signIn = await s.post('/api/auth/login', { email: u.email, password: u.password }, fromAddress());
    const { accessToken, refreshToken } = signIn.body.data;
    const logout = await s.post('/api/auth/logout', {}, bearer(accessToken));
    expect(logout.status).toBe(200);
    expect(logout.body.data.sessionsEnded).toBe(1);
    const refresh = await s.post('/api/auth/refresh', { refreshToken }, fromAddress());
    expect(refresh.status).toBe(401);
    expect(refresh.body.error.code).toBe('AUTH001');
  });

  it('When the password is reset, Then an access token issued before is refused by the gateway at once', async () => {
    const u = await register();
    const phone = tokensOf(await login(u.email, u.password));
    expect(await edgeStatus(phone.accessToken)).not.toBe(401);
    await s.post('/api/auth/forgot-password', { email: u.email }, fromAddress());
    const mail = await eventFor('user.password_reset_requested', u.userId);
    const reset = await s.post(
      '/api/auth/reset-password',
      { token: tokenFrom(openMail(mail).url), newPassword: 'Brand-new-1', confirmPassword: 'Brand-new-1' },
      fromAddress(),
    );
    expect(reset.status).toBe(200);
    await refusedAtEdge(phone.accessToken);
    await refusedAtEdge(u.accessToken);
  });

  it('When the user logs out of all devices, Then the access tokens of every sign-in are refused by the gateway', async () => {
    const u = await register();
    const phone = tokensOf(await login(u.email, u.password));
    const laptop = tokensOf(await login(u.email, u.password));
    const res = await s.post('/api/auth/logout', { allDevices: true }, bearer(laptop.accessToken));
    expect(res.status).toBe(200);
    await refusedAtEdge(phone.accessToken);
    await refusedAtEdge(u.accessToken);
    expect((await s.post('/api/v1/auth/refresh', undefined, bearer(phone.refreshToken))).status).toBe(401);
  });

  it('When the account is deleted, Then the access tokens of its other sign-ins are refused by the gateway', async () => {
    const u = await register();
    const phone = tokensOf(await login(u.email, u.password));
    const res = await s.call('DELETE', '/api/users/account', {
      body: { password: u.password },
      headers: bearer(u.accessToken),
    });
    expect(res.status).toBe(200);
    await refusedAtEdge(phone.accessToken);
  });
});

describe('item 11: iss and aud of access tokens, nonces of provider tokens', () => {
  it('When identity issues an access token, Then it names its issuer and audience, and a token signed with the key but without them is refused by the gateway', async () => {
    const u = await register();
    expect(jwt.decode(u.accessToken)).toMatchObject({ iss: 'lingua-identity', aud: 'lingua-api' });
    const claims = jwt.decode(u.accessToken) as Record<string, unknown>;
    const { iss: _iss, aud: _aud, ...bare } = claims;
    const foreign = jwt.sign({ ...bare, jti: `${bare.jti}-x` }, DEV_JWT_SECRET, { algorithm: 'HS256' });
    const res = await s.call('GET', '/api/users/profile', { headers: bearer(foreign) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH001');
    const wrongAudience = jwt.sign({ ...claims, jti: `${bare.jti}-y`, aud: 'another-api' }, DEV_JWT_SECRET, {
      algorithm: 'HS256',
    });
    expect((await s.call('GET', '/api/users/profile', { headers: bearer(wrongAudience) })).status).toBe(401);
    expect((await s.call('GET', '/api/users/profile', { headers: bearer(u.accessToken) })).status).toBe(200);
  });

  it('When nonces are required and a Google or Apple token comes without one, or with another, Then 400 SOCIAL_LOGIN_ERROR', async () => {
    const email = newUser().email;
    const noNonce = await s.post(
      '/api/v1/auth/google',
      { idToken: await googleToken({ sub: subject(), email, email_verified: true }) },
      fromAddress(),
    );
    expect(noNonce.status).toBe(400);
    expect(noNonce.body.error).toMatchObject({
      code: 'SOCIAL_LOGIN_ERROR',
      details: { reason: 'nonce_required' },
    });
    const mismatch = await s.post(
      '/api/v1/auth/google',
      {
        idToken: await googleToken({ sub: subject(), email, email_verified: true, nonce: 'sent-to-google' }),
        nonce: 'another',
      },
      fromAddress(),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details).toMatchObject({ reason: 'nonce_mismatch' });
    // Apple carries SHA-256(raw nonce): the raw value itself in the token does not match
    const appleRaw = await s.post(
      '/api/v1/auth/apple',
      {
        identityToken: await appleToken({ sub: subject(), email, email_verified: true, nonce: 'raw-1' }),
        nonce: 'raw-1',
      },
      fromAddress(),
    );
    expect(appleRaw.status).toBe(400);
    const appleNone = await s.post(
      '/api/v1/auth/apple',
      {
        identityToken: await appleToken({
          sub: subject(),
          email,
          email_verified: true,
          nonce: sha256Hex('raw-2'),
        }),
      },
      fromAddress(),
    );
    expect(appleNone.body.error).toMatchObject({
      code: 'SOCIAL_LOGIN_ERROR',
      details: { reason: 'nonce_required' },
    });
    const ok = await s.post(
      '/api/v1/auth/google',
      {
        idToken: await googleToken({ sub: subject(), email, email_verified: true, nonce: 'same' }),
        nonce: 'same',
      },
      fromAddress(),
    );
    expect(ok.status).toBe(200);
  });
});

// Last: these move identity's clock by hours, past the gateway's own (its assertions would expire).
describe('item 3: reset and verification e-mails per address', () => {
  const forgot = (email: string) => s.post('/api/auth/forgot-password', { email }, fromAddress());
  const resetMails = (userId: string) =>
    s.identity.events.filter((e) => e.event === 'user.password_reset_requested' && e.data.userId === userId);

  it('When one address is sent 5 account e-mails in an hour, known or unknown, Then the next forgot-password is 429 RATE001 with Retry-After alike, no sixth mail goes out, and the next hour is open again', async () => {
    const known = await register(); // its verification e-mail: 1 of 5
    const unknown = newUser().email;
    expect((await forgot(unknown)).status).toBe(200); // 1 of 5 for the unknown address too
    const answers = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 5; i++) {
      answers.known.push((await forgot(known.email)).status);
      answers.unknown.push((await forgot(unknown)).status);
    }
    expect(answers.known).toEqual([200, 200, 200, 200, 429]);
    expect(answers.unknown).toEqual(answers.known);

    const [a, b] = [await forgot(known.email), await forgot(unknown)];
    for (const res of [a, b]) {
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE001');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    }
    expect(a.body.error).toEqual(b.body.error); // nothing tells the known address apart
    await eventually(() => expect(resetMails(known.userId)).toHaveLength(4));

    s.identity.clock.advance(3600_000);
    expect((await forgot(known.email)).status).toBe(200);
    expect((await forgot(unknown)).status).toBe(200);
    await eventually(() => expect(resetMails(known.userId)).toHaveLength(5));
  });

  it('When an address has no e-mails left, Then registering it is 429 RATE001 too: the verification e-mail counts', async () => {
    const u = newUser();
    for (let i = 0; i < 5; i++) expect((await forgot(u.email)).status).toBe(200);
    const res = await s.post('/api/v1/auth/register', u, fromAddress());
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // nothing was created: the address is still free once the hour is over
    s.identity.clock.advance(3600_000);
    expect((await s.post('/api/v1/auth/register', u, fromAddress())).status).toBe(201);
  });
});
