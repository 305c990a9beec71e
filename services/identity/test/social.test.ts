import { createHash } from 'node:crypto';
import { generateKeyPair } from 'jose';
import {
  eventually,
  APPLE_AUD,
  APPLE_ISS,
  GOOGLE_AUD,
  GOOGLE_ISS,
  type Harness,
  newUser,
  openMail,
  startIdentity,
} from './harness';
import type { AnyDomainEvent } from '@lingua/contracts';

// generous: the machine is shared and under load; nothing here depends on speed
jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => {
  h = await startIdentity();
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const sub = () => `${Date.now()}.${Math.random().toString(36).slice(2)}`;
const nowS = () => Math.floor(h.clock.now().getTime() / 1000);
const appleToken = (
  claims: Record<string, unknown>,
  opts: Partial<Parameters<Harness['jwks']['sign']>[1]> = {},
) => h.jwks.sign(claims, { iss: APPLE_ISS, aud: APPLE_AUD, iat: nowS(), expSeconds: nowS() + 600, ...opts });
const googleToken = (
  claims: Record<string, unknown>,
  opts: Partial<Parameters<Harness['jwks']['sign']>[1]> = {},
) =>
  h.jwks.sign(claims, { iss: GOOGLE_ISS, aud: GOOGLE_AUD, iat: nowS(), expSeconds: nowS() + 600, ...opts });

describe('Sign in with Apple', () => {
  it('When a new Apple user signs in (email_verified as a string, hashed nonce), Then an account with a generated username is created; the second sign-in finds it', async () => {
    const subject = sub();
    const email = newUser().email;
    const rawNonce = 'nonce-123';
    const token = await appleToken({
      sub: subject,
      email,
      email_verified: 'true',
      nonce: createHash('sha256').update(rawNonce).digest('hex'),
    });
    const first = await h.post('/api/v1/auth/apple', {
      identityToken: token,
      userIdentifier: subject,
      email: 'ignored-body-email@example.com',
      fullName: { givenName: 'Ann', familyName: 'Lee' },
      nonce: rawNonce,
      deviceId: 'ios-device-9',
    });
    expect(first.status).toBe(200);
    const d = first.body.data;
    expect(d).toMatchObject({ email, isNewUser: true, authProvider: 'apple', expiresIn: 3600 });
    expect(d.username).toMatch(/^[A-Za-z0-9_]{3,20}$/);
    expect(d.accessToken).toEqual(expect.any(String));
    expect(d.refreshToken).toEqual(expect.any(String));
    await eventually(() =>
      expect(
        h.events.find((e) => e.event === 'user.created' && e.data.userId === d.userId)?.data,
      ).toMatchObject({
        authProvider: 'apple',
        deviceId: 'ios-device-9',
      }),
    );

    const again = await h.post('/api/v1/auth/apple', { identityToken: await appleToken({ sub: subject }) });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ userId: d.userId, isNewUser: false, authProvider: 'apple' });
  });

  const failures: [string, () => Promise<Record<string, unknown>>][] = [
    [
      'forged with another key under the same kid',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return { identityToken: await appleToken({ sub: sub() }, { key: privateKey }) };
      },
    ],
    [
      'expired',
      async () => ({
        identityToken: await appleToken({ sub: sub() }, { iat: nowS() - 7200, expSeconds: nowS() - 3600 }),
      }),
    ],
    [
      'for another audience',
      async () => ({ identityToken: await appleToken({ sub: sub() }, { aud: 'com.evil.app' }) }),
    ],
    [
      'from another issuer',
      async () => ({ identityToken: await appleToken({ sub: sub() }, { iss: 'https://evil.example.com' }) }),
    ],
    [
      'with a nonce that does not match',
      async () => ({
        identityToken: await appleToken({
          sub: sub(),
          nonce: createHash('sha256').update('a').digest('hex'),
        }),
        nonce: 'b',
      }),
    ],
    [
      'whose subject is not the userIdentifier',
      async () => ({ identityToken: await appleToken({ sub: sub() }), userIdentifier: 'someone-else' }),
    ],
    ['not a JWT', async () => ({ identityToken: 'not-a-jwt' })],
    ['missing', async () => ({ authorizationCode: 'abc' })],
  ];
  it.each(failures)('When the identity token is %s, Then 400 SOCIAL_LOGIN_ERROR', async (_name, body) => {
    const res = await h.post('/api/v1/auth/apple', await body());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SOCIAL_LOGIN_ERROR');
  });
});

describe('Sign in with Google', () => {
  it('When a Google account with a verified e-mail matches a password account that verified it, Then it links to that account', async () => {
    const u = newUser();
    const reg = await h.post('/api/v1/auth/register', u);
    const mail = await eventually(() => {
      const found = h.events.find(
        (e) => e.event === 'user.email_verification_requested' && e.data.userId === reg.body.data.userId,
      );
      expect(found).toBeDefined();
      return found as Extract<AnyDomainEvent, { event: 'user.email_verification_requested' }>;
    });
    const token0 = new URL(openMail(mail).url).searchParams.get('token');
    expect((await h.post('/api/auth/verify-email', { token: token0 })).status).toBe(200);
    const token = await googleToken({ sub: sub(), email: u.email, email_verified: true });
    const res = await h.post('/api/v1/auth/google', { idToken: token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      userId: reg.body.data.userId,
      isNewUser: false,
      authProvider: 'google',
    });
  });

  it('When the Google e-mail is not verified and belongs to an account, Then no takeover: 400 SOCIAL_LOGIN_ERROR', async () => {
    const u = newUser();
    await h.post('/api/v1/auth/register', u);
    const token = await googleToken({ sub: sub(), email: u.email, email_verified: false });
    const res = await h.post('/api/v1/auth/google', { idToken: token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SOCIAL_LOGIN_ERROR');
  });

  it('When the Group C google route gets a new user, Then user, tokens and isNewUser in the catalogue envelope; a wrong audience is AUTH003 400', async () => {
    const token = await googleToken({
      sub: sub(),
      email: newUser().email,
      email_verified: true,
      nonce: 'n1',
    });
    const res = await h.post('/api/auth/google', { idToken: token, nonce: 'n1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      user: { authProvider: 'google', emailVerified: true, role: 'user' },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      isNewUser: true,
    });
    expect(res.body.meta.requestId).toEqual(expect.any(String));
    const bad = await h.post('/api/auth/google', {
      idToken: await googleToken({ sub: sub() }, { aud: APPLE_AUD }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('AUTH003');
  });
});
