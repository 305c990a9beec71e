import { eventually, bearer, type Harness, ipHeader, newUser, openMail, startIdentity } from './harness';

// generous: the machine is shared and under load; nothing here depends on speed
jest.setTimeout(180_000);

let h: Harness;
let accessToken: string;
beforeAll(async () => {
  h = await startIdentity();
  const res = await h.post('/api/v1/auth/register', newUser());
  accessToken = res.body.data.accessToken;
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const profileWith = (token: string) => h.request('GET', '/api/users/profile', { headers: bearer(token) });

// Forged, tampered and wrongly signed client tokens are refused at the gateway, where client tokens
// are verified (gateway/test/edge-auth.test.ts, "access token attacks at the edge"); identity sees the
// caller only as the gateway's assertion (test/platform/internal-assertions.test.ts).
describe('token lifetime as identity sees it (Group C envelope: AUTH002 expired)', () => {
  it('When the token is valid, Then the profile answers 200', async () => {
    expect((await profileWith(accessToken)).status).toBe(200);
  });

  it('When an hour passes, Then the token has expired: 401 AUTH002 (Group A: TOKEN_EXPIRED)', async () => {
    const res = await h.post('/api/v1/auth/register', newUser());
    const token = res.body.data.accessToken;
    h.clock.advance(3600_000 + 1000);
    const expired = await profileWith(token);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('AUTH002');
    const groupA = await h.post('/api/v1/auth/logout', undefined, bearer(token));
    expect(groupA.body.error.code).toBe('TOKEN_EXPIRED');
    // refresh gives a fresh one
    const refreshed = await h.post('/api/v1/auth/refresh', undefined, bearer(res.body.data.refreshToken));
    expect((await profileWith(refreshed.body.data.accessToken)).status).toBe(200);
  });

  it('When no token is sent, Then 401', async () => {
    expect((await h.request('GET', '/api/users/profile')).status).toBe(401);
  });
});

describe('bad input never reaches the database and never gives 500', () => {
  const cases: [string, string, unknown][] = [
    ['register with wrong types', '/api/v1/auth/register', { email: 42, password: true, username: ['x'] }],
    [
      'register with $ operators',
      '/api/v1/auth/register',
      { email: { $gt: '' }, password: { $ne: null }, username: { $regex: '.*' } },
    ],
    ['login with $ operators', '/api/v1/auth/login', { email: { $gt: '' }, password: { $ne: 'x' } }],
    ['login with missing fields', '/api/v1/auth/login', {}],
    [
      'login with a huge e-mail',
      '/api/v1/auth/login',
      { email: `${'a'.repeat(20_000)}@example.com`, password: 'x' },
    ],
    ['register with unknown fields', '/api/v1/auth/register', { ...newUser(), role: 'admin' }],
    ['apple with wrong types', '/api/v1/auth/apple', { identityToken: 12, fullName: 'x' }],
    ['google with an object token', '/api/v1/auth/google', { idToken: { $gt: '' } }],
    ['catalogue register with an array body', '/api/auth/register', [1, 2, 3]],
    [
      'reset-password with $ operators',
      '/api/auth/reset-password',
      { token: { $ne: '' }, newPassword: 'Secret123', confirmPassword: 'Secret123' },
    ],
    ['verify-email with a number', '/api/auth/verify-email', { token: 7 }],
    ['catalogue refresh with a huge token', '/api/auth/refresh', { refreshToken: 'x'.repeat(50_000) }],
  ];
  it.each(cases)('When %s, Then 400 in the route envelope', async (_name, path, body) => {
    const res = await h.post(path, body, ipHeader());
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toMatch(/^(VALIDATION_ERROR|VAL001)$/);
  });

  it('When the body is not JSON, or too large, Then 400 / 413 and never 500', async () => {
    const notJson = await h.request('POST', '/api/v1/auth/login', {
      raw: '{"email": "a@b.c", "password": ',
      headers: { 'content-type': 'application/json', ...ipHeader() },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_INPUT');
    const catalogue = await h.request('POST', '/api/auth/login', {
      raw: 'nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(catalogue.status).toBe(400);
    expect(catalogue.body.error.code).toBe('VAL002');
    const huge = await h.request('POST', '/api/v1/auth/register', {
      raw: JSON.stringify({ email: 'a'.repeat(300_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    const noBody = await h.request('POST', '/api/v1/auth/register');
    expect(noBody.status).toBe(400);
  });
});

describe('no user enumeration through forgot-password', () => {
  it('When forgot-password is asked for a known and an unknown address, Then both get the same answer and only the known one gets a mail', async () => {
    const known = newUser();
    const reg = await h.post('/api/v1/auth/register', known);
    const unknown = newUser().email;
    const a = await h.post('/api/auth/forgot-password', { email: known.email });
    const b = await h.post('/api/auth/forgot-password', { email: unknown });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data).toEqual(b.body.data);
    await eventually(() =>
      expect(
        h.events.some(
          (e) => e.event === 'user.password_reset_requested' && e.data.userId === reg.body.data.userId,
        ),
      ).toBe(true),
    );
    expect(
      h.events.some((e) => e.event === 'user.password_reset_requested' && openMail(e).email === unknown),
    ).toBe(false);
  });
});

describe('OpenAPI fragment', () => {
  it('When the gateway asks for the fragment, Then every identity route is described from its zod schemas', async () => {
    const res = await h.request('GET', '/internal/openapi.json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.body.paths).sort();
    expect(paths).toEqual(
      [
        '/api/v1/auth/register',
        '/api/v1/auth/login',
        '/api/v1/auth/refresh',
        '/api/v1/auth/logout',
        '/api/v1/auth/apple',
        '/api/v1/auth/google',
        '/api/auth/register',
        '/api/auth/login',
        '/api/auth/logout',
        '/api/auth/refresh',
        '/api/auth/verify-email',
        '/api/auth/forgot-password',
        '/api/auth/reset-password',
        '/api/auth/google',
        '/api/users/profile',
        '/api/users/settings',
        '/api/users/account',
        '/api/users/avatars/{name}',
        '/api/users/devices',
        '/api/users/devices/{deviceId}',
      ].sort(),
    );
    const register = res.body.paths['/api/v1/auth/register'].post;
    expect(JSON.stringify(register.requestBody)).toContain('preferredLanguage');
  });
});
