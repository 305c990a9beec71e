/**
 * Leases of rate-limit points: a replica takes several points of a caller's shared budget from
 * Redis in one step and hands them out locally, so a caller sending many requests costs one Redis
 * round trip per lease, not per request. The lease grows like TCP slow start: 1 point first (a
 * caller at a human pace is counted exactly, request by request), doubling while each lease is used
 * up within its lifetime, never above `max` nor a small share of what is left of the budget (so
 * near the limit every replica is exact again). Points unused when a lease expires go back to Redis.
 * A busy lease is topped up ahead of need (at a quarter left), so its caller's requests do not
 * wait for the Redis round trip each time a lease runs out.
 * A caller at a human pace, whose lease has expired between requests, is admitted on credit when
 * this replica last saw plenty of its budget left in the same window: the point is taken from Redis
 * behind the request instead of before it. Overshoot is bounded: one request per replica, and only
 * while at least `remainingShareDivisor` points were left (near the limit every request waits).
 */
export interface LeasePolicy {
  /** Most points taken at once; 1 turns leasing off (every request asks Redis). */
  max: number;
  /** A lease's lifetime; its unused points are then returned. */
  lifetimeMs: number;
  /** A lease never takes more than remaining / this, so the replicas' leftovers stay small. */
  remainingShareDivisor: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = { max: 100, lifetimeMs: 1_000, remainingShareDivisor: 16 };

/** What a replica last learned of a caller's budget from Redis: the window's end and what was left. */
export interface KnownBudget {
  remainingAfter: number;
  resetAt: number;
}

/** True when a request may be admitted before Redis answers (see above): same window, plenty left. */
export const canAdmitOnCredit = (known: KnownBudget | undefined, now: number, policy: LeasePolicy): boolean =>
  policy.max > 1 &&
  known !== undefined &&
  now < known.resetAt &&
  known.remainingAfter >= policy.remainingShareDivisor;

/** What a replica holds of one caller's budget. */
export interface Lease {
  /** Points taken from Redis and not yet handed out. */
  points: number;
  /** How many points the lease took. */
  size: number;
  /** The budget left in Redis right after this lease was taken (other replicas may spend it since). */
  remainingAfter: number;
  limit: number;
  /** End of the rate window (ms). */
  resetAt: number;
  /** End of the lease's life (ms): later, unused points go back. */
  expiresAt: number;
  /** A top-up was asked for this lease (at most one: a refused one is not retried per request). */
  toppingUp?: boolean;
}

/** True when the request can be served from the lease without asking Redis. */
export const canServeLocally = (lease: Lease | undefined, now: number): lease is Lease =>
  lease !== undefined && lease.points > 0 && now < lease.expiresAt && now < lease.resetAt;

/**
 * True when a busy lease should be topped up now: it was big enough to be leased in batches, a
 * quarter or less of it is left within its life, and the window outlives the top-up's lease (so
 * the points still held and the new ones belong to the same window).
 */
export const shouldTopUp = (lease: Lease, now: number, policy: LeasePolicy): boolean =>
  !lease.toppingUp &&
  lease.size >= 4 &&
  lease.points <= lease.size / 4 &&
  now < lease.expiresAt &&
  now + policy.lifetimeMs < lease.resetAt;

/** The size of the next lease, after `previous` (absent: the caller is new here). */
export function nextLeaseSize(previous: Lease | undefined, now: number, policy: LeasePolicy): number {
  if (!previous || policy.max <= 1 || now >= previous.resetAt) return 1;
  // used up, or topped up at a quarter left, within its life
  const usedUpInTime = previous.points <= previous.size / 4 && now < previous.expiresAt;
  const wanted = usedUpInTime ? previous.size * 2 : Math.floor(previous.size / 2);
  const share = Math.floor(previous.remainingAfter / policy.remainingShareDivisor);
  return Math.max(1, Math.min(wanted, policy.max, share));
}

/**
 * How many of the `size` points just taken are really granted, given the count Redis reached
 * (`consumedAfter`, which includes them): all when the budget had room, part at the boundary,
 * none when it was already spent.
 */
export const grantedPoints = (size: number, consumedAfter: number, limit: number): number =>
  Math.max(0, Math.min(size, limit - (consumedAfter - size)));

/** The remaining budget to report for a request served from the lease (after taking its point). */
export const remainingReported = (lease: Lease): number => lease.remainingAfter + lease.points;
