import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import {
  AccessClaims as AccessClaimsSchema,
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  type AccessClaims,
  type AccessTokenInput,
  type AssertionAudience,
  type Clock,
  createAccessTokens,
  createAssertionSigner,
  DEV_JWT_SECRET,
  devAssertionKey,
  systemClock,
} from '@lingua/auth';

export interface TestToken {
  sub: string;
  token: string;
  /** The token's id: what a logout revokes. */
  jti: string;
  /** `{ authorization: 'Bearer …' }` (and, for a service, its assertion), ready to spread into request headers. */
  headers: Record<string, string>;
}

/** The claims of a new (or given) user: a free user with an address and a name from its id. */
function testUser(user: Partial<AccessTokenInput>): AccessTokenInput {
  const sub = user.sub ?? randomUUID();
  return {
    sub,
    email: `${sub}@example.com`,
    username: `u${sub.slice(0, 8)}`,
    role: 'user',
    subscription_status: 'inactive',
    ...user,
  };
}

/** An access token for a new (or given) user, signed as identity signs them, valid at the clock's time. */
export function signTestToken(
  secret: string,
  user: Partial<AccessTokenInput> = {},
  clock: Clock = systemClock,
): TestToken {
  const input = testUser(user);
  const { token, claims } = createAccessTokens(secret, clock).sign(input);
  return { sub: input.sub, token, jti: claims.jti, headers: { authorization: `Bearer ${token}` } };
}

/** The service a test calls directly, as the gateway sees it: its audience and its assertion key. */
export interface AssertionTarget {
  audience: AssertionAudience;
  key: string;
}

/**
 * The headers the gateway forwards for a verified caller: the client's bearer token and the
 * internal assertion for `target`. The assertion lives as long as the token (tests move clocks by
 * weeks; the gateway's own are short-lived).
 */
export function assertionHeaders(
  target: AssertionTarget,
  token: string,
  claims: AccessClaims,
  clock: Clock = systemClock,
): Record<string, string> {
  const keys = Object.fromEntries(
    ASSERTION_AUDIENCES.map((a) => [a, a === target.audience ? target.key : devAssertionKey(a)]),
  ) as Record<AssertionAudience, string>;
  const signer = createAssertionSigner(keys, { clock, ttlSeconds: 100 * 365 * 86_400 });
  return { authorization: `Bearer ${token}`, [ASSERTION_HEADER]: signer.sign(target.audience, claims) };
}

/**
 * A caller of `target` that went through the gateway: a client token for a new (or given) user
 * (`ttlSeconds`, default one hour) and the assertion the gateway adds, valid at the clock's time.
 */
export function signTestCaller(
  target: AssertionTarget,
  user: Partial<AccessTokenInput> = {},
  clock: Clock = systemClock,
  ttlSeconds?: number,
): TestToken {
  const input = testUser(user);
  const { token, claims } = createAccessTokens(DEV_JWT_SECRET, clock).sign(input, ttlSeconds);
  return { sub: input.sub, token, jti: claims.jti, headers: assertionHeaders(target, token, claims, clock) };
}

/**
 * What the gateway forwards for a bearer token: the header itself and, when it is a genuine access
 * token (expired or not: the service must see the expiry), the service's internal assertion for it.
 * A refresh token or a forged one goes on alone, as the gateway passes it or would have refused it.
 */
export function forwardedByGateway(token: string, target: AssertionTarget): Record<string, string> {
  let claims: AccessClaims | undefined;
  try {
    const parsed = AccessClaimsSchema.safeParse(
      jwt.verify(token, DEV_JWT_SECRET, { algorithms: ['HS256'], ignoreExpiration: true }),
    );
    if (parsed.success) claims = parsed.data;
  } catch {
    // not one of our access tokens
  }
  if (!claims) return { authorization: `Bearer ${token}` };
  return assertionHeaders(target, token, claims);
}
