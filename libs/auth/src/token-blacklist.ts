import type { RedisClient } from '@lingua/redis';
import { type Clock, systemClock } from './clock';
import { tokenFingerprint } from './access-tokens';

/** Redis key of a revoked token: one namespace shared by the identity service, the gateway and every replica. */
export const BLACKLIST_KEY_PREFIX = 'auth:blacklist:';

export interface TokenBlacklist {
  /** Revokes a token until `expiresAtSeconds` (its exp claim); the key then expires by itself. */
  add(token: string, expiresAtSeconds: number): Promise<void>;
  has(token: string): Promise<boolean>;
}

/** Blacklist in Redis keyed by the token's fingerprint, never the token itself. */
export function createTokenBlacklist(redis: RedisClient, clock: Clock = systemClock): TokenBlacklist {
  const keyOf = (token: string) => BLACKLIST_KEY_PREFIX + tokenFingerprint(token);
  return {
    async add(token, expiresAtSeconds) {
      const ttl = Math.max(1, expiresAtSeconds - Math.floor(clock.now().getTime() / 1000));
      await redis.set(keyOf(token), '1', { expiration: { type: 'EX', value: ttl } });
    },
    async has(token) {
      return (await redis.exists(keyOf(token))) === 1;
    },
  };
}
