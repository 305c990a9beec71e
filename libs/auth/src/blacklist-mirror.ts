import type { RedisClient } from '@lingua/redis';
import { type Clock, systemClock } from './clock';
import {
  BLACKLIST_CHANNEL,
  BLACKLIST_INDEX_KEY,
  createTokenBlacklist,
  type TokenBlacklist,
  userRevocation,
} from './token-blacklist';

const RELOAD_RETRY_MS = 250;

export interface BlacklistMirror extends TokenBlacklist {
  /** True while answers come from memory (subscribed and loaded); false means each check asks Redis. */
  readonly live: boolean;
  /**
   * The answer from memory without waiting, while the mirror is live; undefined when it is not (then
   * ask isRevoked). For a hot path that wants no promise when nothing is pending.
   */
  revokedNow(jti: string, sub?: string): boolean | undefined;
  stop(): Promise<void>;
}

/**
 * How long after losing Redis the mirror still answers from memory. No revocation can be written
 * while Redis is down for everyone, so what the mirror held when it lost Redis is still complete;
 * only a process cut off alone from Redis could miss one, for at most this long (docs/adr/0015).
 */
export const STALE_ANSWERS_MS = 30_000;

export interface BlacklistMirrorOptions {
  clock?: Clock;
  /** How long after losing Redis memory still answers (STALE_ANSWERS_MS); 0: never. */
  staleForMs?: number;
  /** How often expired entries are forgotten. */
  sweepMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * The revoked tokens kept in memory, for a process that checks a token on every request (the
 * gateway): no Redis round trip per request. Correctness rests on the order of the (re)sync:
 * subscribe to the revocation channel first, then load the index, and only then answer from
 * memory; a revocation published in between arrives by one way or the other. When the
 * subscription drops, memory still answers for `staleForMs` (a Redis restart costs no sign-ins);
 * after that, and before the mirror was ever complete, every check asks Redis itself, so a long
 * outage refuses (the caller turns the failure into 503), never passes.
 */
export async function createBlacklistMirror(
  redis: RedisClient,
  options: BlacklistMirrorOptions = {},
): Promise<BlacklistMirror> {
  const clock = options.clock ?? systemClock;
  const direct = createTokenBlacklist(redis, clock);
  const revoked = new Map<string, number>(); // jti → expiry (ms)
  // every token of these users (deleted accounts): user id → expiry (ms); apart, so the common check
  // (no such user) costs one size test instead of building a key per request
  const revokedUsers = new Map<string, number>();
  const USER = userRevocation('');
  const subscriber = redis.duplicate();
  const staleForMs = options.staleForMs ?? STALE_ANSWERS_MS;
  let live = false;
  /** When the mirror stopped being known complete (it was live until then). */
  let lostAt: number | undefined;
  let subscribed = false;
  let generation = 0;
  let stopped = false;

  const remember = (jti: string, expiresAtMs: number) => {
    if (expiresAtMs <= clock.now().getTime()) return;
    if (jti.startsWith(USER)) revokedUsers.set(jti.slice(USER.length), expiresAtMs);
    else revoked.set(jti, expiresAtMs);
  };
  const onMessage = (message: string) => {
    const [jti, expiry] = message.split(' ');
    if (jti && Number.isFinite(Number(expiry))) remember(jti, Number(expiry));
  };

  const lose = () => {
    if (live) lostAt = clock.now().getTime();
    live = false;
  };

  async function load() {
    const mine = ++generation;
    lose();
    try {
      const entries = await redis.zRangeByScoreWithScores(BLACKLIST_INDEX_KEY, clock.now().getTime(), '+inf');
      for (const { value, score } of entries) remember(value, score);
      // still the same connection, still subscribed: memory is complete from here on
      if (mine === generation && subscriber.isReady && !stopped) {
        live = true;
        lostAt = undefined;
      }
    } catch (err) {
      // the main connection may come back after the subscriber: try again while nothing changed
      options.onError?.(err);
      if (mine === generation && !stopped)
        setTimeout(() => mine === generation && subscriber.isReady && void load(), RELOAD_RETRY_MS).unref();
    }
  }

  const drop = () => {
    generation++;
    lose();
  };
  subscriber.on('error', (err) => {
    drop();
    options.onError?.(err);
  });
  subscriber.on('end', drop);
  subscriber.on('reconnecting', drop);
  // node-redis re-subscribes before it reports 'ready' after a reconnect (the socket initiator)
  subscriber.on('ready', () => subscribed && void load());

  await subscriber.connect();
  await subscriber.subscribe(BLACKLIST_CHANNEL, onMessage);
  subscribed = true;
  await load();

  function revokedNow(jti: string, sub?: string): boolean | undefined {
    const now = clock.now().getTime();
    if (live && !subscriber.isReady) lose(); // dropped before its event arrived
    if (!live && (lostAt === undefined || now - lostAt > staleForMs)) return undefined;
    const expiry = revoked.get(jti);
    if (expiry !== undefined && expiry > now) return true;
    if (sub === undefined || revokedUsers.size === 0) return false;
    const userExpiry = revokedUsers.get(sub);
    return userExpiry !== undefined && userExpiry > now;
  }

  const sweep = setInterval(() => {
    const now = clock.now().getTime();
    for (const [jti, expiry] of revoked) if (expiry <= now) revoked.delete(jti);
    for (const [user, expiry] of revokedUsers) if (expiry <= now) revokedUsers.delete(user);
  }, options.sweepMs ?? 60_000);
  sweep.unref();

  return {
    get live() {
      return live && subscriber.isReady;
    },
    revoke: (jti, expiresAtSeconds) => direct.revoke(jti, expiresAtSeconds),
    isRevoked: async (jti, sub) => revokedNow(jti, sub) ?? direct.isRevoked(jti, sub),
    revokedNow,
    async stop() {
      stopped = true;
      live = false;
      lostAt = undefined;
      clearInterval(sweep);
      if (subscriber.isOpen) await subscriber.close();
    },
  };
}
