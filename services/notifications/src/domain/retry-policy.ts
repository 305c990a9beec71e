/**
 * Retry and circuit-breaker rules of webhook delivery (pure). The schedule is Svix's: an attempt at
 * once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts over ~27.5 h), each delay
 * with ±10 % jitter so retries of many deliveries do not arrive in lock-step.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.1;

/** Failures in a row that open an endpoint's circuit. */
export const CIRCUIT_THRESHOLD = 5;
const CIRCUIT_BASE_MS = 30_000;
const CIRCUIT_MAX_MS = 3_600_000;
/** The longest Retry-After we honour. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** Delay before the next attempt after `attemptsMade` failed ones; null when attempts are exhausted. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** How long the circuit stays open: doubles with each failure past the threshold, capped at an hour. */
export function circuitCooldownMs(consecutiveFailures: number): number {
  const over = Math.max(0, consecutiveFailures - CIRCUIT_THRESHOLD);
  return Math.min(CIRCUIT_MAX_MS, CIRCUIT_BASE_MS * 2 ** Math.min(over, 20));
}

/** A Retry-After header (seconds or HTTP date) in ms, capped; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now.getTime();
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

export const isSuccessStatus = (status: number) => status >= 200 && status < 300;
