import { type AccessClaims, type AccessTokens, tokenFingerprint } from '@lingua/auth';

export interface VerifiedToken {
  claims: AccessClaims;
  /** The blacklist's key for the token, hashed once. */
  fingerprint: string;
}

/**
 * Remembers tokens already verified (the HMAC, the claims check and the fingerprint run once per token, not once per
 * request; the same string always carries the same claims). Entries are dropped at the token's
 * expiry; when full, the cache starts over. Revocation is not cached: the blacklist is asked on
 * every request.
 */
export function cachedVerifier(tokens: AccessTokens, maxEntries = 10_000, now = () => Date.now()) {
  let cache = new Map<string, VerifiedToken>();
  return (token: string): VerifiedToken => {
    const hit = cache.get(token);
    if (hit && hit.claims.exp * 1000 > now()) return hit;
    if (hit) cache.delete(token);
    const claims = tokens.verify(token); // throws TOKEN_EXPIRED / TOKEN_INVALID
    if (cache.size >= maxEntries) cache = new Map();
    const verified = { claims, fingerprint: tokenFingerprint(token) };
    cache.set(token, verified);
    return verified;
  };
}
