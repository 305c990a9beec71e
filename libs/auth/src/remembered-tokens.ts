import { AppError } from '@lingua/errors';
import type { AccessClaims, AccessTokens } from './access-tokens';
import { type Clock, systemClock } from './clock';

export interface VerifiedToken {
  /** Shared by every request that sends the token, hence frozen; `jti` is the blacklist's key. */
  claims: Readonly<AccessClaims>;
}

/**
 * Verification that remembers the tokens it accepted: a client sends the same token on every
 * request, and checking its HMAC and claims each time was a visible share of a request's CPU in the
 * gateway and the flashcards service. A remembered token is still refused once it expires (the same
 * rule and error as jsonwebtoken: expired when now ≥ exp); refusals are never remembered. Revocation
 * is the blacklist's job (by the claims' jti) and is checked on every request. The oldest entry goes
 * first when full.
 */
export function rememberedVerifier(
  tokens: AccessTokens,
  clock: Clock = systemClock,
  maxEntries = 10_000,
): (token: string) => VerifiedToken {
  const accepted = new Map<string, VerifiedToken>();
  return (token) => {
    const hit = accepted.get(token);
    if (hit === undefined) {
      const verified = { claims: Object.freeze(tokens.verify(token)) };
      if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value as string);
      accepted.set(token, verified);
      return verified;
    }
    if (Math.floor(clock.now().getTime() / 1000) >= hit.claims.exp) {
      accepted.delete(token);
      throw new AppError('TOKEN_EXPIRED', 'Token has expired');
    }
    return hit;
  };
}

/** AccessTokens whose verify is a rememberedVerifier (each caller gets its own copy of the claims). */
export function rememberedTokens(
  tokens: AccessTokens,
  clock: Clock = systemClock,
  maxEntries = 10_000,
): AccessTokens {
  const verify = rememberedVerifier(tokens, clock, maxEntries);
  return {
    sign: (input, ttlSeconds) => tokens.sign(input, ttlSeconds),
    verify: (token) => ({ ...verify(token).claims }),
  };
}
