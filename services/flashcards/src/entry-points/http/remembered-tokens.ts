import { type AccessClaims, type AccessTokens, type Clock } from '@lingua/auth';
import { AppError } from '@lingua/errors';

/**
 * AccessTokens whose verify remembers the tokens it accepted: a study session sends the same token
 * on every request, and checking its signature and claims again each time was a visible share of a
 * due request's CPU. A remembered token is still refused once it expires (the same rule and error as
 * jsonwebtoken: expired when now ≥ exp); refusals are never remembered. Revocation is the blacklist's
 * job and is checked on every request as before. The oldest entry goes first when full.
 */
export function rememberedTokens(tokens: AccessTokens, clock: Clock, maxEntries = 10_000): AccessTokens {
  const accepted = new Map<string, Readonly<AccessClaims>>();
  return {
    sign: (input, ttlSeconds) => tokens.sign(input, ttlSeconds),
    verify(token) {
      const claims = accepted.get(token);
      if (claims === undefined) {
        const fresh = Object.freeze(tokens.verify(token));
        if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value as string);
        accepted.set(token, fresh);
        return { ...fresh };
      }
      if (Math.floor(clock.now().getTime() / 1000) >= claims.exp) {
        accepted.delete(token);
        throw new AppError('TOKEN_EXPIRED', 'Token has expired');
      }
      return { ...claims };
    },
  };
}
