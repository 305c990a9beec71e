import { execDurably, type RedisClient } from '@lingua/redis';
import { type Clock, systemClock } from './clock';

/**
 * Redis key of a revoked token: one namespace shared by the identity service, the gateway and every
 * replica. The hash tag {blacklist} keeps every entry and the index in one Redis Cluster slot, so a
 * revocation's batch and the two-key EXISTS stay single-slot (the list is small: entries expire with
 * the tokens). The keys before the tag (auth:blacklist:<jti>) need no migration: identity's
 * restore pass writes every revocation in force back from the database (docs/adr/0022, 0031).
 */
export const BLACKLIST_KEY_PREFIX = 'auth:{blacklist}:';
/** Sorted set of the revoked token ids (jti), score = expiry in ms: what a mirror loads on (re)connect. */
export const BLACKLIST_INDEX_KEY = 'auth:{blacklist}-index';
/** Pub/sub channel announcing each revocation as "<jti> <expiry ms>". */
export const BLACKLIST_CHANNEL = 'auth:blacklist-revoked';

/**
 * The entry that revokes every token of a user at once (a deleted account): kept in the blacklist
 * beside the jti entries, so every checker that holds the list (mirrors, services) refuses the
 * user's tokens without knowing each of them. Kept until the last token issued before it expires.
 */
export const userRevocation = (userId: string) => `user:${userId}`;

/** Revoked tokens by their `jti` claim: one token each, whatever other token looks like it. */
export interface TokenBlacklist {
  /**
   * Revokes the token with this jti (or, with userRevocation(), every token of a user) until
   * `expiresAtSeconds`; the key then expires by itself.
   */
  revoke(jti: string, expiresAtSeconds: number): Promise<void>;
  /** Whether the token with this jti, or (given its `sub`) every token of its user, is revoked. */
  isRevoked(jti: string, sub?: string): Promise<boolean>;
}

/**
 * Blacklist in Redis keyed by the token's jti, never the token itself. A revocation is also indexed
 * and announced, so a hot reader (the gateway) can keep the whole list in memory
 * (createBlacklistMirror) instead of asking Redis on every request.
 */
export function createTokenBlacklist(
  redis: RedisClient,
  clock: Clock = systemClock,
  /**
   * `replicas`: how many Redis replicas must hold a revocation before revoke() resolves (the
   * connection's RedisHandle.replicas): a failover to a replica then cannot bring the token back.
   */
  options: { replicas?: number } = {},
): TokenBlacklist {
  const keyOf = (jti: string) => BLACKLIST_KEY_PREFIX + jti;
  return {
    async revoke(jti, expiresAtSeconds) {
      const nowMs = clock.now().getTime();
      const ttl = Math.max(1, expiresAtSeconds - Math.floor(nowMs / 1000));
      const expiresAtMs = expiresAtSeconds * 1000;
      // idempotent writes (execDurably may send them again to a new primary after a failover)
      await execDurably(
        redis,
        redis
          .multi()
          .set(keyOf(jti), '1', { expiration: { type: 'EX', value: ttl } })
          .zAdd(BLACKLIST_INDEX_KEY, { score: expiresAtMs, value: jti })
          .zRemRangeByScore(BLACKLIST_INDEX_KEY, '-inf', nowMs)
          .publish(BLACKLIST_CHANNEL, `${jti} ${expiresAtMs}`),
        options.replicas ?? 0,
        { key: keyOf(jti) },
      );
    },
    async isRevoked(jti, sub) {
      const keys = sub === undefined ? [keyOf(jti)] : [keyOf(jti), keyOf(userRevocation(sub))];
      return (await redis.exists(keys)) > 0;
    },
  };
}
