import type { AccessClaims, AccessTokens } from '@lingua/auth';

/**
 * Remembers tokens already verified (the HMAC and the claims check run once per token, not once per
 * request; the same string always carries the same claims). Entries are dropped at the token's
 * expiry; when full, the cache starts over. Revocation is not cached: the blacklist is asked on
 * every request.
 */
export function cachedVerifier(tokens: AccessTokens, maxEntries = 10_000, now = () => Date.now()) {
  let cache = new Map<string, AccessClaims>();
  return (token: string): AccessClaims => {
    const hit = cache.get(token);
    if (hit && hit.exp * 1000 > now()) return hit;
    if (hit) cache.delete(token);
    const claims = tokens.verify(token); // throws TOKEN_EXPIRED / TOKEN_INVALID
    if (cache.size >= maxEntries) cache = new Map();
    cache.set(token, claims);
    return claims;
  };
}
