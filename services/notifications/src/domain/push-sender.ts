/**
 * The port through which notifications pushes to a user's phone (APNs for iOS, FCM for Android, or
 * the development sink). One call is one message to one device token; retries, back-off and the
 * per-provider concurrency bound live behind the port, so a caller sees one final outcome.
 */
export type PushPlatform = 'ios' | 'android';

export interface PushMessage {
  platform: PushPlatform;
  /** The device's push token as the app registered it. */
  token: string;
  title: string;
  body: string;
  /** Messages with the same key replace each other on the device (apns-collapse-id, FCM collapse_key). */
  collapseKey?: string | undefined;
  /** Small custom data for the app (string values: FCM carries only strings). */
  data?: Record<string, string> | undefined;
}

/**
 * - `sent`: the provider accepted the message;
 * - `unregistered`: the app is gone from the device (APNs 410, FCM UNREGISTERED): remove the token;
 * - `invalid`: the token is malformed or belongs to another app (APNs BadDeviceToken, FCM
 *   INVALID_ARGUMENT): remove the token;
 * - `retry`: the provider was busy or down through every attempt (429, 5xx, network); the token
 *   stays, the message may be tried later; `retryAfterMs` is the provider's last wish, if any;
 * - `failed`: refused for a reason retrying cannot fix and that is not the token's fault (our
 *   credentials or payload): the token stays, the operator must look (`reason`).
 */
export type PushOutcome =
  | { outcome: 'sent' }
  /**
   * `refusedAt` (ms): since when the provider holds the token dead (APNs 410's `timestamp`, else the
   * answer's time), for identity's RemoveDevice, which keeps a token registered again after it.
   */
  | { outcome: 'unregistered' | 'invalid'; reason: string; refusedAt: number }
  | { outcome: 'retry'; reason: string; retryAfterMs?: number | undefined }
  | { outcome: 'failed'; reason: string };

export interface PushSender {
  send(message: PushMessage): Promise<PushOutcome>;
}

/** Outcomes after which the device token must be removed. */
export const tokenIsDead = (o: PushOutcome) => o.outcome === 'unregistered' || o.outcome === 'invalid';

/**
 * The wait before retry number `attempt` (1 = the first retry): exponential with full jitter from
 * `baseMs`, capped at `maxMs`, but never shorter than what the provider asked for (Retry-After), so
 * a provider that throttles us is not hit again early.
 */
export function pushRetryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)) * random();
  return Math.max(backoff, retryAfterMs ?? 0);
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined | null, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
