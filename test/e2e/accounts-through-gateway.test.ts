import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import {
  APPLE_AUD,
  APPLE_ISS,
  GOOGLE_AUD,
  GOOGLE_ISS,
  type JwksServer,
  startJwksServer,
} from '../../services/identity/test/harness';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailSink } = require('../../deploy/local/mail-sink.js') as {
  startMailSink(o: { port: number }): Promise<{
    port: number;
    mails: { to: string; subject: string; links: string[]; text: string }[];
    close(): Promise<void>;
  }>;
};

// Accounts as the app drives them through the gateway: Group C sign-up, the e-mailed links (caught by
// an SMTP sink the notifications service sends to), sign-in and refresh, a forgotten password, Google
// and Apple ID tokens signed against a JWKS served here, the avatar an image loader fetches without
// a token, in-app notifications, and the account's deletion.
jest.setTimeout(120_000);

let stack: InProcessStack;
let jwks: JwksServer;
let sink: Awaited<ReturnType<typeof startMailSink>>;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  jwks = await startJwksServer();
  sink = await startMailSink({ port: 0 });
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.test',
      APPLE_JWKS_URL: jwks.url,
      APPLE_AUDIENCES: APPLE_AUD,
      GOOGLE_JWKS_URL: jwks.url,
      GOOGLE_AUDIENCES: GOOGLE_AUD,
      SMTP_PORT: String(sink.port),
    }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await sink?.close();
  await jwks?.close();
});

/** The token in the link of the latest e-mail to `email` whose subject matches. */
async function mailedToken(email: string, subject: RegExp): Promise<string> {
  const mail = await waitFor(
    () => {
      const found = sink.mails.filter((m) => m.to.includes(email) && subject.test(m.subject)).at(-1);
      expect(found).toBeDefined();
      return found!;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const link = mail.links.find((l) => l.includes('token='));
  expect(link).toBeDefined();
  return new URL(link!).searchParams.get('token')!;
}

async function registerGroupC() {
  const u = newCredentials('c');
  const res = await call('POST', '/api/auth/register', { body: { ...u, confirmPassword: u.password } });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    success: true,
    data: {
      user: { id: expect.any(String), email: u.email, username: u.username },
      message: expect.any(String),
    },
  });
  return { ...u, id: res.body.data.user.id as string };
}

const nowS = () => Math.floor(Date.now() / 1000);
const subject = () => `${Date.now()}.${randomBytes(6).toString('hex')}`;

describe('accounts through the gateway', () => {
  it('When a user registers, follows the mailed link, signs in and refreshes, Then each step answers as documented and the old refresh token is spent', async () => {
    const u = await registerGroupC();
    const token = await mailedToken(u.email, /Verify/);
    const verified = await call('POST', '/api/auth/verify-email', { body: { token } });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user).toMatchObject({ id: u.id, email: u.email, emailVerified: true });

    const login = await call('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({
      user: { id: u.id, username: u.username, emailVerified: true, role: 'user' },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 3600,
    });

    const refreshed = await call('POST', '/api/auth/refresh', {
      body: { refreshToken: login.body.data.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data).toMatchObject({ accessToken: expect.any(String), expiresIn: 3600 });
    expect(refreshed.body.data.refreshToken).not.toBe(login.body.data.refreshToken);
    // the new access token works; the profile is the user's
    const profile = await call('GET', '/api/users/profile', { token: refreshed.body.data.accessToken });
    expect(profile.status).toBe(200);
    expect(profile.body.data.user).toMatchObject({ id: u.id, email: u.email });
    // the rotated token is spent: presenting it again is refused (and ends that sign-in)
    const reused = await call('POST', '/api/auth/refresh', {
      body: { refreshToken: login.body.data.refreshToken },
    });
    expect(reused.status).toBe(401);
  });

  it('When a user forgets the password, Then the mailed token sets a new one: the old password is refused and the new one signs in', async () => {
    const u = await registerGroupC();
    const forgot = await call('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    expect(forgot.status).toBe(200);
    expect(forgot.body.data.message).toEqual(expect.any(String));
    const token = await mailedToken(u.email, /Reset/);

    const reset = await call('POST', '/api/auth/reset-password', {
      body: { token, newPassword: 'Changed456', confirmPassword: 'Changed456' },
    });
    expect(reset.status).toBe(200);
    expect(reset.body.data.message).toEqual(expect.any(String));

    const old = await call('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(old.status).toBe(401);
    const now = await call('POST', '/api/auth/login', { body: { email: u.email, password: 'Changed456' } });
    expect(now.status).toBe(200);
    expect(now.body.data.user.id).toBe(u.id);
  });

  it('When a web user signs in with Google (Group C) and later the mobile app with the same Google account (Group A), Then one account is created and then found', async () => {
    const sub = subject();
    const email = newCredentials('gg').email;
    const idToken = () =>
      jwks.sign(
        { sub, email, email_verified: true, nonce: 'n-1' },
        { iss: GOOGLE_ISS, aud: GOOGLE_AUD, iat: nowS(), expSeconds: nowS() + 600 },
      );
    const web = await call('POST', '/api/auth/google', { body: { idToken: await idToken(), nonce: 'n-1' } });
    expect(web.status).toBe(200);
    expect(web.body.data).toMatchObject({
      user: { email, authProvider: 'google', emailVerified: true },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      isNewUser: true,
    });
    expect(web.body.data.user.username).toMatch(/^[A-Za-z0-9_]{3,20}$/);

    const mobile = await call('POST', '/api/v1/auth/google', {
      body: { idToken: await idToken(), nonce: 'n-1' },
    });
    expect(mobile.status).toBe(200);
    expect(mobile.body.data).toMatchObject({
      userId: web.body.data.user.id,
      email,
      isNewUser: false,
      authProvider: 'google',
      expiresIn: 3600,
    });
    const profile = await call('GET', '/api/users/profile', { token: mobile.body.data.accessToken });
    expect(profile.body.data.user.id).toBe(web.body.data.user.id);
  });

  it('When an iPhone user signs in with Apple (hashed nonce, first-time full name), Then a new account answers with Lingua tokens; the second sign-in finds it', async () => {
    const sub = subject();
    const email = newCredentials('ap').email;
    const rawNonce = randomUUID();
    const identityToken = await jwks.sign(
      { sub, email, email_verified: 'true', nonce: createHash('sha256').update(rawNonce).digest('hex') },
      { iss: APPLE_ISS, aud: APPLE_AUD, iat: nowS(), expSeconds: nowS() + 600 },
    );
    const first = await call('POST', '/api/v1/auth/apple', {
      body: {
        identityToken,
        userIdentifier: sub,
        fullName: { givenName: 'Ann', familyName: 'Lee' },
        nonce: rawNonce,
        deviceId: 'ios-device-1',
      },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      email,
      isNewUser: true,
      authProvider: 'apple',
      expiresIn: 3600,
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    const again = await call('POST', '/api/v1/auth/apple', {
      body: {
        identityToken: await jwks.sign(
          { sub },
          { iss: APPLE_ISS, aud: APPLE_AUD, iat: nowS(), expSeconds: nowS() + 600 },
        ),
        userIdentifier: sub,
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ userId: first.body.data.userId, isNewUser: false });
  });

  it('When a user uploads an avatar, Then an image loader fetches it at its URL without a token, byte for byte', async () => {
    const u = newCredentials('av');
    const reg = await call('POST', '/api/v1/auth/register', { body: u });
    expect(reg.status).toBe(201);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(20_000)]);
    const form = new FormData();
    form.append('displayName', 'Avatar Owner');
    form.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    const put = await call('PUT', '/api/users/profile', { raw: form, token: reg.body.data.accessToken });
    expect(put.status).toBe(200);
    const url = put.body.data.user.profile.avatarUrl as string;
    expect(url).toMatch(/^\/api\/users\/avatars\/[^/]+$/);

    const image = await fetch(`${stack.gateway.url}${url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
  });

  it('When a new user opens the welcome notification and then removes it, Then it is read, then gone', async () => {
    const u = newCredentials('nt');
    const reg = await call('POST', '/api/v1/auth/register', { body: u });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const welcome = await waitFor(
      async () => {
        const list = await call('GET', '/api/notifications', { token });
        expect(list.status).toBe(200);
        expect(list.body.data.notifications).toHaveLength(1);
        return list.body.data.notifications[0] as { id: string; type: string; read: boolean };
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(welcome).toMatchObject({ type: 'welcome', read: false });

    const read = await call('PUT', `/api/notifications/${encodeURIComponent(welcome.id)}/read`, { token });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: welcome.id, read: true, readAt: expect.any(String) });
    const unread = await call('GET', '/api/notifications?unreadOnly=true', { token });
    expect(unread.body.data).toMatchObject({ notifications: [], unreadCount: 0 });

    const removed = await call('DELETE', `/api/notifications/${encodeURIComponent(welcome.id)}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ id: welcome.id, deleted: true });
    const after = await call('GET', '/api/notifications', { token });
    expect(after.body.data.notifications).toEqual([]);
  });

  it('When a user deletes the account with the password, Then the token and the password stop working', async () => {
    const u = newCredentials('del');
    const reg = await call('POST', '/api/v1/auth/register', { body: u });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const deleted = await call('DELETE', '/api/users/account', {
      token,
      body: { password: u.password, reason: 'moving on' },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.message).toEqual(expect.any(String));

    expect((await call('GET', '/api/users/profile', { token })).status).toBe(401);
    const login = await call('POST', '/api/v1/auth/login', {
      body: { email: u.email, password: u.password },
    });
    expect(login.status).toBe(401);
  });
});
