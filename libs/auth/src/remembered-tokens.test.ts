import { createAccessTokens } from './access-tokens';
import { rememberedTokens } from './remembered-tokens';

const SECRET = 'x'.repeat(32);
const claims = {
  sub: 'u1',
  email: 'a@b.co',
  username: 'a',
  role: 'user',
  subscription_status: 'inactive',
} as const;

describe('remembered access tokens', () => {
  let nowMs = Date.UTC(2026, 4, 10, 12);
  const clock = { now: () => new Date(nowMs) };

  it('When a remembered token reaches its expiry, Then it is refused as expired, like a fresh verify', () => {
    const inner = createAccessTokens(SECRET, clock);
    const tokens = rememberedTokens(inner, clock);
    const { token } = inner.sign(claims, 60);
    expect(tokens.verify(token)).toMatchObject({ sub: 'u1' });
    expect(tokens.verify(token)).toMatchObject({ sub: 'u1' }); // from memory
    nowMs += 59_000;
    expect(tokens.verify(token).sub).toBe('u1');
    nowMs += 1_000; // now = exp
    expect(() => inner.verify(token)).toThrow(expect.objectContaining({ code: 'TOKEN_EXPIRED' }));
    expect(() => tokens.verify(token)).toThrow(expect.objectContaining({ code: 'TOKEN_EXPIRED' }));
  });

  it('When a token is forged, Then it is refused every time (refusals are not remembered)', () => {
    const tokens = rememberedTokens(createAccessTokens(SECRET, clock), clock);
    const forged = createAccessTokens('y'.repeat(32), clock).sign(claims).token;
    expect(() => tokens.verify(forged)).toThrow(expect.objectContaining({ code: 'TOKEN_INVALID' }));
    expect(() => tokens.verify(forged)).toThrow(expect.objectContaining({ code: 'TOKEN_INVALID' }));
  });

  it('When a caller changes the claims it got, Then the next caller still gets the verified ones', () => {
    const inner = createAccessTokens(SECRET, clock);
    const tokens = rememberedTokens(inner, clock);
    const { token } = inner.sign(claims);
    tokens.verify(token);
    (tokens.verify(token) as { sub: string }).sub = 'someone else';
    expect(tokens.verify(token).sub).toBe('u1');
  });
});
