import { randomUUID } from 'node:crypto';
import { type AccessTokenInput, type Clock, createAccessTokens, systemClock } from '@lingua/auth';

export interface TestToken {
  sub: string;
  token: string;
  /** The token's id: what a logout revokes. */
  jti: string;
  /** `{ authorization: 'Bearer …' }`, ready to spread into request headers. */
  headers: Record<string, string>;
}

/** An access token for a new (or given) user, signed as identity signs them, valid at the clock's time. */
export function signTestToken(
  secret: string,
  user: Partial<AccessTokenInput> = {},
  clock: Clock = systemClock,
): TestToken {
  const sub = user.sub ?? randomUUID();
  const { token, claims } = createAccessTokens(secret, clock).sign({
    sub,
    email: `${sub}@example.com`,
    username: `u${sub.slice(0, 8)}`,
    role: 'user',
    subscription_status: 'inactive',
    ...user,
  });
  return { sub, token, jti: claims.jti, headers: { authorization: `Bearer ${token}` } };
}
