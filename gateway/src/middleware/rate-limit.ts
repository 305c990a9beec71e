import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@lingua/errors';
import type { RedisClient } from '@lingua/redis';
import {
  canAdmitOnCredit,
  canServeLocally,
  DEFAULT_LEASE_POLICY,
  grantedPoints,
  type KnownBudget,
  type Lease,
  type LeasePolicy,
  nextLeaseSize,
  remainingReported,
  shouldTopUp,
} from '../domain/rate-lease';
import { type BucketName, bucketSpecs, type RateLimits } from '../domain/rate-plans';

export interface RateState {
  limit: number;
  remaining: number;
  resetAt: Date;
}

/** A point taken, or refused (`exceeded`) when the budget is spent. */
export type RateDecision = RateState & { exceeded: boolean };

/**
 * One Redis limiter per bucket, shared by every gateway replica (atomic INCRBY + TTL in Redis).
 * A busy caller's points are leased in batches (domain/rate-lease.ts): one Redis round trip per
 * lease, exact again near the limit, unused points returned when the lease expires, a busy lease
 * topped up in the background before it runs out.
 * When Redis is down, each replica falls back to an in-memory limiter with the same budget
 * (insurance) rather than refusing all traffic or letting everything through; except the budgets
 * against abuse of the public auth operations, which fail closed (the outage is a 503).
 */
const FAIL_CLOSED = new Set<BucketName>(['login', 'signup', 'recovery']);
/** Callers whose last known budget a replica keeps for admission on credit (~100 bytes each). */
const KNOWN_MAX = 50_000;

export function createRateLimiters(
  redis: RedisClient,
  limits: RateLimits,
  prefix: string,
  policy: LeasePolicy = DEFAULT_LEASE_POLICY,
  onError: (err: unknown) => void = () => undefined,
  onCredited: () => void = () => undefined,
) {
  const specs = bucketSpecs(limits);
  const limiters = Object.fromEntries(
    (Object.keys(specs) as BucketName[]).map((name) => {
      const { points, durationSeconds: duration } = specs[name];
      return [
        name,
        new RateLimiterRedis({
          storeClient: redis,
          useRedisPackage: true,
          keyPrefix: `${prefix}:${name}`,
          points,
          duration,
          rejectIfRedisNotReady: true,
          // the budgets against abuse (sign-in guards passwords, sign-up and e-mails guard against
          // floods): counted per replica they would multiply by the replicas and reset on restart,
          // so without Redis those operations are refused (503) rather than left open
          ...(!FAIL_CLOSED.has(name) && {
            insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: `${prefix}:${name}` }),
          }),
        }),
      ];
    }),
  ) as Record<BucketName, RateLimiterRedis>;

  const leases = new Map<string, Lease>();
  const pending = new Map<string, Promise<unknown>>();
  // what Redis last said of each caller's budget (for admission on credit): the newest KNOWN_MAX
  const known = new Map<string, KnownBudget>();
  const remember = (id: string, lease: Lease) => {
    known.delete(id);
    known.set(id, { remainingAfter: lease.remainingAfter, resetAt: lease.resetAt });
    if (known.size > KNOWN_MAX) known.delete(known.keys().next().value!);
  };
  const leaseKey = (bucket: BucketName, key: string) => `${bucket} ${key}`;
  let returning = 0; // give-backs Redis has not answered yet

  /** Gives a lease's unused points back to the shared budget (best effort: lost points only tighten it). */
  const giveBack = (id: string, lease: Lease) => {
    leases.delete(id);
    if (lease.points <= 0 || Date.now() >= lease.resetAt) return;
    // what this replica knows of the budget counted these points as spent: they are left again
    const budget = known.get(id);
    if (budget && Math.abs(budget.resetAt - lease.resetAt) <= policy.lifetimeMs)
      budget.remainingAfter += lease.points;
    const [bucket, key] = [id.slice(0, id.indexOf(' ')) as BucketName, id.slice(id.indexOf(' ') + 1)];
    returning++;
    limiters[bucket]
      .reward(key, lease.points)
      .catch(onError)
      .finally(() => returning--);
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, lease] of leases) if (now >= lease.expiresAt) giveBack(id, lease);
  }, policy.lifetimeMs);
  sweep.unref();

  /** Takes `size` points of the caller's budget from Redis: the decision, refused or not. */
  async function take(bucket: BucketName, key: string, size: number): Promise<RateLimiterRes> {
    try {
      return await limiters[bucket].consume(key, size);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return rejection;
    }
  }

  /** A lease of `points` from the Redis answer to taking `size` points at `now`. */
  const leaseOf = (points: number, size: number, res: RateLimiterRes, limit: number, now: number): Lease => ({
    points,
    size,
    remainingAfter: Math.max(0, res.remainingPoints),
    limit,
    resetAt: now + Math.max(0, res.msBeforeNext),
    expiresAt: now + policy.lifetimeMs,
  });

  /** Takes a new lease from Redis and serves one request from it. */
  async function takeLease(bucket: BucketName, key: string, id: string): Promise<RateDecision> {
    const limit = specs[bucket].points;
    const previous = leases.get(id);
    if (previous) giveBack(id, previous);
    const size = nextLeaseSize(previous, Date.now(), policy);
    const res = await take(bucket, key, size);
    const granted = grantedPoints(size, res.consumedPoints, limit);
    const lease = leaseOf(granted - 1, size, res, limit, Date.now());
    remember(id, lease);
    if (granted === 0) return { limit, remaining: 0, resetAt: new Date(lease.resetAt), exceeded: true };
    leases.set(id, lease);
    return { limit, remaining: remainingReported(lease), resetAt: new Date(lease.resetAt), exceeded: false };
  }

  /**
   * Tops a busy lease up in the background: a new lease whose points join those still held, so
   * the caller's next requests are served from memory while Redis answers. Nothing granted (the
   * budget is spent): the lease runs out and the next request asks Redis as usual.
   */
  async function topUp(bucket: BucketName, key: string, id: string, current: Lease): Promise<void> {
    const limit = specs[bucket].points;
    const size = nextLeaseSize(current, Date.now(), policy);
    const res = await take(bucket, key, size);
    const granted = grantedPoints(size, res.consumedPoints, limit);
    if (granted === 0) return;
    const lease = leaseOf(granted, size, res, limit, Date.now());
    remember(id, lease);
    // the points still held count only if the lease is still there (not swept: its points went back)
    // and in the same window (not when Redis started a new one, e.g. after losing the key)
    const sameWindow = Math.abs(lease.resetAt - current.resetAt) <= policy.lifetimeMs;
    if (leases.get(id) === current && sameWindow) lease.points += current.points;
    leases.set(id, lease);
  }

  /**
   * A request admitted before Redis answers (rate-lease.ts): the lease that takes its point is
   * taken behind it, as one taken before it would be. The budgets against abuse never give credit.
   */
  function onCredit(bucket: BucketName, key: string, id: string, now: number): RateDecision | undefined {
    const budget = known.get(id);
    if (FAIL_CLOSED.has(bucket) || pending.has(id) || !canAdmitOnCredit(budget, now, policy))
      return undefined;
    budget!.remainingAfter--;
    const taking = takeLease(bucket, key, id)
      .catch(onError) // the next request asks Redis, which reports the outage
      .finally(() => pending.delete(id));
    pending.set(id, taking);
    onCredited();
    return {
      limit: specs[bucket].points,
      remaining: budget!.remainingAfter,
      resetAt: new Date(budget!.resetAt),
      exceeded: false,
    };
  }

  /** One point from the caller's lease, or on credit; undefined when Redis must be asked first. */
  function consumeLocally(bucket: BucketName, key: string): RateDecision | undefined {
    const id = leaseKey(bucket, key);
    const lease = leases.get(id);
    const now = Date.now();
    if (!canServeLocally(lease, now)) return onCredit(bucket, key, id, now);
    lease.points--;
    if (shouldTopUp(lease, now, policy) && !pending.has(id)) {
      lease.toppingUp = true;
      const topping = topUp(bucket, key, id, lease)
        .catch(onError) // the lease runs out and the next request asks Redis, which reports the outage
        .finally(() => pending.delete(id));
      pending.set(id, topping);
    }
    return {
      limit: lease.limit,
      remaining: remainingReported(lease),
      resetAt: new Date(lease.resetAt),
      exceeded: false,
    };
  }

  return {
    consumeLocally,
    /** A bucket's window, for the RateLimit-Policy header. */
    windowSeconds: (bucket: BucketName) => specs[bucket].durationSeconds,
    /** Takes one point; resolves with the state, or `exceeded` when the budget is spent. */
    async consume(bucket: BucketName, key: string): Promise<RateDecision> {
      const id = leaseKey(bucket, key);
      for (;;) {
        const local = consumeLocally(bucket, key);
        if (local) return local;
        const inFlight = pending.get(id);
        if (inFlight) {
          await inFlight.catch(() => undefined); // then try the lease it brought
          continue;
        }
        const taking = takeLease(bucket, key, id).finally(() => pending.delete(id));
        pending.set(id, taking);
        return taking;
      }
    },
    /**
     * Leased points this replica still holds, plus leases being taken and give-backs Redis has not
     * answered: 0 once every point it took is spent or back in the shared budget (tests wait for it).
     */
    outstanding(): number {
      let held = returning + pending.size;
      for (const lease of leases.values()) held += Math.max(0, lease.points);
      return held;
    },
    /** Returns every unused leased point (on shutdown). */
    release() {
      clearInterval(sweep);
      for (const [id, lease] of leases) giveBack(id, lease);
    },
  };
}
export type RateLimiters = ReturnType<typeof createRateLimiters>;

/** IETF RateLimit header fields (draft 7 style) on every limited response; returns the seconds to reset. */
export function setRateHeaders(
  res: { setHeader(name: string, value: string): unknown },
  s: RateState,
  windowSeconds: number,
): number {
  const reset = Math.max(0, Math.ceil((s.resetAt.getTime() - Date.now()) / 1000));
  res.setHeader('RateLimit-Limit', String(s.limit));
  res.setHeader('RateLimit-Remaining', String(s.remaining));
  res.setHeader('RateLimit-Reset', String(reset));
  res.setHeader('RateLimit-Policy', `${s.limit};w=${windowSeconds}`);
  return reset;
}

export const tooManyRequests = (retryAfterSeconds: number, message: string) =>
  new AppError('RATE_LIMITED', message, {
    headers: { 'Retry-After': String(Math.max(1, retryAfterSeconds)) },
    details: { retry_after_seconds: Math.max(1, retryAfterSeconds) },
  });
