import type { RedisClient } from '@lingua/redis';
import { type Clock, systemClock } from './clock';

/** Redis key of a revoked token: one namespace shared by the identity service, the gateway and every replica. */
export const BLACKLIST_KEY_PREFIX = 'auth:blacklist:';
/** Sorted set of the revoked token ids (jti), score = expiry in ms: what a mirror loads on (re)connect. */
export const BLACKLIST_INDEX_KEY = 'auth:blacklist-index';
/** Pub/sub channel announcing each revocation as "<jti> <expiry ms>". */
export const BLACKLIST_CHANNEL = 'auth:blacklist-revoked';

/** Revoked tokens by their `jti` claim: one token each, whatever other token looks like it. */
export interface TokenBlacklist {
  /** Revokes the token with this jti until `expiresAtSeconds` (its exp claim); the key then expires by itself. */
  revoke(jti: string, expiresAtSeconds: number): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
}

/**
 * Blacklist in Redis keyed by the token's jti, never the token itself. A revocation is also indexed
 * and announced, so a hot reader (the gateway) can keep the whole list in memory
 * (createBlacklistMirror) instead of asking Redis on every request.
 */
export function createTokenBlacklist(redis: RedisClient, clock: Clock = systemClock): TokenBlacklist {
  const keyOf = (jti: string) => BLACKLIST_KEY_PREFIX + jti;
  return {
    async revoke(jti, expiresAtSeconds) {
      const nowMs = clock.now().getTime();
      const ttl = Math.max(1, expiresAtSeconds - Math.floor(nowMs / 1000));
      const expiresAtMs = expiresAtSeconds * 1000;
      await redis
        .multi()
        .set(keyOf(jti), '1', { expiration: { type: 'EX', value: ttl } })
        .zAdd(BLACKLIST_INDEX_KEY, { score: expiresAtMs, value: jti })
        .zRemRangeByScore(BLACKLIST_INDEX_KEY, '-inf', nowMs)
        .publish(BLACKLIST_CHANNEL, `${jti} ${expiresAtMs}`)
        .exec();
    },
    async isRevoked(jti) {
      return (await redis.exists(keyOf(jti))) === 1;
    },
  };
}
