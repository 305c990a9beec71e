/**
 * How a durable consumer treats a handler's failure (docs/adr/0021-event-retry-and-dead-letters.md):
 *
 * - `deterministic`: the same event fails the same way however often it is tried (invalid data, a
 *   handler's own "this can never work"). Counted by the consumer itself and dead-lettered after
 *   maxAttempts, so a poison event does not retry for ever.
 * - `infrastructure`: a database, Redis, NATS, network or timeout failure, or anything not known to
 *   be deterministic. Retried with capped back-off for as long as it takes: an outage of any length
 *   must not dead-letter an erasure or a role change.
 */
export type FailureKind = 'deterministic' | 'infrastructure';

/**
 * Thrown by a handler for an event that can never be applied: dead-lettered after maxAttempts. Any
 * error with `permanent: true` counts the same (domain code need not import this library).
 */
export class PermanentEventError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentEventError';
  }
}

/** Socket and resolver codes of node, the drivers and undici: the far side was not reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Error names of the MongoDB driver, mongoose, Redis and NATS clients for an unreachable or failing server. */
const INFRASTRUCTURE_NAME =
  /^(Mongo(Network|NetworkTimeout|ServerSelection|NotConnected|PoolCleared|Topology|Timeout|OperationTimeout|WaitQueueTimeout|ServerClosed|TopologyClosed)\w*Error|MongooseServerSelectionError|(Redis|Connection|Socket|Reconnect|Timeout|Abort|Closed|Disconnect)\w*Error|NatsError|TimeoutError|AbortError|ClientUnavailable)$/;

/** AppError statuses that a retry can cure: timeout, conflict, locked, too early, throttled, abandoned. */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 423, 425, 429, 499]);

function* causes(err: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  let current = err;
  while (current && typeof current === 'object' && !seen.has(current) && seen.size < 8) {
    seen.add(current);
    yield current as Record<string, unknown>;
    if (Array.isArray((current as { errors?: unknown }).errors))
      for (const inner of (current as { errors: unknown[] }).errors) yield* causes(inner);
    current = (current as { cause?: unknown }).cause;
  }
}

function looksLikeInfrastructure(e: Record<string, unknown>): boolean {
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e.name === 'string' && INFRASTRUCTURE_NAME.test(e.name)) return true;
  // the MongoDB driver marks failures a retry may cure with labels
  const labels = e.errorLabelSet ?? e.errorLabels;
  if (labels instanceof Set ? labels.size > 0 : Array.isArray(labels) && labels.length > 0) return true;
  // gRPC: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED
  if (typeof e.code === 'number' && 'metadata' in e && [14, 4, 8, 10].includes(e.code)) return true;
  return (
    typeof e.message === 'string' && /buffering timed out|connection (closed|refused|reset)/i.test(e.message)
  );
}

function looksDeterministic(e: Record<string, unknown>): boolean {
  if (e.permanent === true) return true;
  if (e.name === 'ZodError') return true;
  // the services' AppError: a client mistake (4xx) is repeated by every retry
  if (e.name === 'AppError' && typeof e.status === 'number')
    return e.status >= 400 && e.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(e.status);
  return false;
}

/**
 * The default classification: an infrastructure signature anywhere in the cause chain wins (a
 * validation error wrapping a timeout is a timeout); then the known deterministic shapes; anything
 * else is retried like an outage, since dead-lettering a recoverable event loses it until a human
 * replays it, while retrying a poison one only costs a log line a minute.
 */
export function classifyFailure(err: unknown): FailureKind {
  const chain = [...causes(err)];
  if (chain.some(looksLikeInfrastructure)) return 'infrastructure';
  if (chain.some(looksDeterministic)) return 'deterministic';
  return 'infrastructure';
}

/**
 * An event this build cannot read because a newer producer wrote it (an event name or an enum value
 * it does not know yet, as during a rolling deploy): every issue of the validation is an unknown value.
 */
export function isFromANewerProducer(err: unknown): boolean {
  const issues = (err as { name?: string; issues?: { code?: string }[] })?.issues;
  return (
    (err as { name?: string })?.name === 'ZodError' &&
    Array.isArray(issues) &&
    issues.length > 0 &&
    issues.every((i) => i.code === 'invalid_value' || i.code === 'invalid_union')
  );
}
