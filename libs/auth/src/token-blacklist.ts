import type { RedisClient } from '@lingua/redis';
import { type Clock, systemClock } from './clock';
import { tokenFingerprint } from './access-tokens';

/** Redis key of a revoked token: one namespace shared by the identity service, the gateway and every replica. */
export const BLACKLIST_KEY_PREFIX = 'auth:blacklist:';
/** Sorted set of the revoked fingerprints, score = expiry in ms: what a mirror loads on (re)connect. */
export const BLACKLIST_INDEX_KEY = 'auth:blacklist-index';
/** Pub/sub channel announcing each revocation as "<fingerprint> <expiry ms>". */
export const BLACKLIST_CHANNEL = 'auth:blacklist-revoked';

export interface TokenBlacklist {
  /** Revokes a token until `expiresAtSeconds` (its exp claim); the key then expires by itself. */
  add(token: string, expiresAtSeconds: number): Promise<void>;
  /** The same, for a token known only by its fingerprint (recorded when it was issued). */
  addFingerprint(fingerprint: string, expiresAtSeconds: number): Promise<void>;
  has(token: string): Promise<boolean>;
}

/**
 * Blacklist in Redis keyed by the token's fingerprint, never the token itself. A revocation is also
 * indexed and announced, so a hot reader (the gateway) can keep the whole list in memory
 * (createBlacklistMirror) instead of asking Redis on every request.
 */
export function createTokenBlacklist(
  redis: RedisClient,
  clock: Clock = systemClock,
): TokenBlacklist & { hasFingerprint(fingerprint: string): Promise<boolean> } {
  const keyOf = (fingerprint: string) => BLACKLIST_KEY_PREFIX + fingerprint;
  async function addFingerprint(fingerprint: string, expiresAtSeconds: number) {
    const nowMs = clock.now().getTime();
    const ttl = Math.max(1, expiresAtSeconds - Math.floor(nowMs / 1000));
    const expiresAtMs = expiresAtSeconds * 1000;
    await redis
      .multi()
      .set(keyOf(fingerprint), '1', { expiration: { type: 'EX', value: ttl } })
      .zAdd(BLACKLIST_INDEX_KEY, { score: expiresAtMs, value: fingerprint })
      .zRemRangeByScore(BLACKLIST_INDEX_KEY, '-inf', nowMs)
      .publish(BLACKLIST_CHANNEL, `${fingerprint} ${expiresAtMs}`)
      .exec();
  }
  return {
    add: (token, expiresAtSeconds) => addFingerprint(tokenFingerprint(token), expiresAtSeconds),
    addFingerprint,
    async has(token) {
      return (await redis.exists(keyOf(tokenFingerprint(token)))) === 1;
    },
    async hasFingerprint(fingerprint) {
      return (await redis.exists(keyOf(fingerprint))) === 1;
    },
  };
}
