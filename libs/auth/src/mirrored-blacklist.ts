import type { RedisClient } from '@lingua/redis';
import { type BlacklistMirror, createBlacklistMirror } from './blacklist-mirror';
import type { Clock } from './clock';
import { createTokenBlacklist, type TokenBlacklist } from './token-blacklist';

/** What the blacklist reports through (a pino logger fits). */
export interface BlacklistWarnings {
  warn(details: { err: unknown }, message: string): unknown;
}

/**
 * The token blacklist for a service that checks every request: revocations mirrored in memory
 * (createBlacklistMirror: pub/sub plus the index, asking Redis itself whenever the mirror is not known
 * to be complete), so a request costs no Redis round trip for it. Until the mirror is up (and if it
 * cannot start) every check asks Redis.
 */
export function mirroredBlacklist(
  redis: RedisClient,
  clock: Clock,
  logger: BlacklistWarnings,
): TokenBlacklist & { stop(): Promise<void> } {
  const direct = createTokenBlacklist(redis, clock);
  let mirror: BlacklistMirror | undefined;
  let stopped = false;
  const starting = createBlacklistMirror(redis, {
    clock,
    onError: (err) =>
      logger.warn({ err }, 'token blacklist mirror: Redis unavailable; checking Redis directly'),
  })
    .then(async (m) => {
      if (stopped) await m.stop();
      else mirror = m;
    })
    .catch((err) =>
      logger.warn({ err }, 'token blacklist mirror not started; checking Redis on every request'),
    );
  return {
    revoke: (jti, expiresAtSeconds) => direct.revoke(jti, expiresAtSeconds),
    isRevoked: (jti, sub) => (mirror ?? direct).isRevoked(jti, sub),
    async stop() {
      stopped = true;
      // a mirror still connecting stops itself once it is up (above)
      await Promise.race([starting, new Promise((r) => setTimeout(r, 1_000).unref())]);
      const m = mirror;
      mirror = undefined;
      await m?.stop();
    },
  };
}
