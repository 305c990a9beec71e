import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppError } from '@lingua/errors';
import { TestClock } from '@lingua/testing';
import { createAccessTokens } from './access-tokens';

const SECRET = 'test-secret-0123456789abcdef-0123456789';
const user = {
  sub: '7b0b6f2e-2f7e-4c5a-9d59-3f7f1c1f0a11',
  email: 'a@b.co',
  username: 'ann',
  role: 'user',
  subscription_status: 'inactive',
} as const;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return undefined;
}

describe('access tokens', () => {
  it('When signed, Then the header is HS256/JWT and the payload has exactly the spec claims plus jti, iss and aud, expiring in 3600 s', () => {
    const tokens = createAccessTokens(SECRET, new TestClock('2026-11-22T10:00:00Z'));
    const { token, expiresIn } = tokens.sign(user);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(Object.keys(decoded.payload as object).sort()).toEqual([
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
    expect(expiresIn).toBe(3600);
    expect(tokens.verify(token)).toMatchObject({
      ...user,
      iss: 'lingua-identity',
      aud: 'lingua-api',
      iat: 1795341600,
      exp: 1795345200,
    });
  });

  it('When the clock passes exp, Then TOKEN_EXPIRED', () => {
    const clock = new TestClock('2026-11-22T10:00:00Z');
    const tokens = createAccessTokens(SECRET, clock);
    const { token } = tokens.sign(user);
    clock.advance(3601 * 1000);
    expect(codeOf(() => tokens.verify(token))).toBe('TOKEN_EXPIRED');
  });

  it('When the token is malformed, tampered, signed with another secret or another algorithm, Then TOKEN_INVALID', () => {
    const tokens = createAccessTokens(SECRET);
    const { token } = tokens.sign(user);
    const [h, p] = token.split('.');
    const tamperedPayload = Buffer.from(
      JSON.stringify({ ...user, role: 'admin', iat: 1, exp: 9999999999 }),
    ).toString('base64url');
    const resigned = `${h}.${tamperedPayload}.${createHmac('sha256', 'wrong').update(`${h}.${tamperedPayload}`).digest('base64url')}`;
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    const hs512 = jwt.sign({ ...user }, SECRET, { algorithm: 'HS512', expiresIn: 60 });
    for (const bad of ['garbage', `${h}.${tamperedPayload}.${token.split('.')[2]}`, resigned, none, hs512]) {
      expect(codeOf(() => tokens.verify(bad))).toBe('TOKEN_INVALID');
    }
  });

  it('When a validly signed token lacks spec claims, Then TOKEN_INVALID', () => {
    const tokens = createAccessTokens(SECRET);
    const odd = jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    expect(codeOf(() => tokens.verify(odd))).toBe('TOKEN_INVALID');
  });

  it('When the secret is short, Then creation is refused', () => {
    expect(() => createAccessTokens('short')).toThrow(/32/);
  });
});

describe('token ids (jti)', () => {
  it('When one user is signed in twice in the same second, Then the two tokens differ by their jti', () => {
    const tokens = createAccessTokens(SECRET, new TestClock('2026-11-22T10:00:00Z'));
    const a = tokens.sign(user);
    const b = tokens.sign(user);
    expect(a.token).not.toBe(b.token);
    expect(a.claims.jti).not.toBe(b.claims.jti);
    expect(tokens.verify(a.token).jti).toBe(a.claims.jti);
  });

  it('When a validly signed token has no jti (issued before it), Then TOKEN_INVALID', () => {
    const clock = new TestClock('2026-11-22T10:00:00Z');
    const tokens = createAccessTokens(SECRET, clock);
    const iat = Math.floor(clock.now().getTime() / 1000);
    const legacy = jwt.sign({ ...user, iat, exp: iat + 3600 }, SECRET, { algorithm: 'HS256' });
    expect(codeOf(() => tokens.verify(legacy))).toBe('TOKEN_INVALID');
  });
});

describe('issuer and audience (iss, aud)', () => {
  const clock = new TestClock('2026-11-22T10:00:00Z');
  const iat = Math.floor(clock.now().getTime() / 1000);
  const signed = (claims: Record<string, unknown>) =>
    jwt.sign({ ...user, jti: 'j-1', iat, exp: iat + 3600, ...claims }, SECRET, { algorithm: 'HS256' });

  it('When configured, Then the token carries them and the same configuration accepts it', () => {
    const parties = { issuer: 'https://id.lingua.example', audience: 'lingua-mobile-api' };
    const tokens = createAccessTokens(SECRET, clock, parties);
    const { token } = tokens.sign(user);
    expect(jwt.decode(token)).toMatchObject({ iss: parties.issuer, aud: parties.audience });
    expect(tokens.verify(token)).toMatchObject({ iss: parties.issuer, aud: parties.audience });
  });

  it('When a token signed with the right key lacks iss or aud, or names another, Then TOKEN_INVALID', () => {
    const tokens = createAccessTokens(SECRET, clock);
    const ok = { iss: 'lingua-identity', aud: 'lingua-api' };
    expect(tokens.verify(signed(ok)).sub).toBe(user.sub);
    for (const bad of [
      {},
      { iss: ok.iss },
      { aud: ok.aud },
      { ...ok, iss: 'someone-else' },
      { ...ok, aud: 'another-api' },
      { ...ok, aud: ['another-api'] },
    ])
      expect(codeOf(() => tokens.verify(signed(bad)))).toBe('TOKEN_INVALID');
    // a verifier configured for another audience refuses the default one's tokens
    const other = createAccessTokens(SECRET, clock, { issuer: ok.iss, audience: 'another-api' });
    expect(codeOf(() => other.verify(tokens.sign(user).token))).toBe('TOKEN_INVALID');
  });
});
