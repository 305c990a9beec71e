import type http from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '@lingua/errors';
import { DEADLINE_HEADER, errorBodyForPath, requestBudgetMs } from '@lingua/http';
import type { Logger } from '@lingua/logger';
import { type HistogramSeries, statusClass, upstreamDuration, upstreamErrors } from '@lingua/metrics';
import { budgetFor, type DeadlineBudgets } from '../domain/deadlines';
import { type ServiceName, serviceFor } from '../routes';
import type { BodyRequest } from './conventions';
import type { BufferedRequest } from './idempotency';
import type { ForwardRequest } from './forwarder';

export interface UpstreamOptions {
  /** The most the gateway ever waits for a service. */
  timeoutMs: number;
  deadlines: DeadlineBudgets;
  logger: Logger;
}

/** Methods whose repetition changes nothing more than the first call (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** The connection failed under the request (a replica closing a keep-alive socket, or gone). */
const CONNECTION_FAILURES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Retries of a request whose connection failed, each on a new connection. The second waits
 * RETRY_PAUSE_MS first: a replica killed mid-request still accepts connections until its process is
 * gone (about 0.1 s, measured with a 600 MB process on a loaded machine), and a TCP balancer that has
 * not yet seen it down can send the first retry, made at once, to it again (seen in the chaos runs:
 * a GET answered 504 after both attempts got "socket hang up" within 150 ms).
 */
export const UPSTREAM_RETRIES = 2;
const RETRY_PAUSE_MS = 200;

/** How long to wait before retry number `retry` (1-based). */
export const retryPauseMs = (retry: number): number => (retry <= 1 ? 0 : RETRY_PAUSE_MS);

/**
 * Whether a failed attempt may be sent again: only before any answer reached the client, only
 * without a streamed body (it cannot be replayed), and only when the request could not have had an
 * effect twice: an idempotent method, or a connection refused (the request was never sent).
 */
export function mayRetry(method: string | undefined, err: unknown, streamed: boolean): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  if (streamed || code === undefined || !CONNECTION_FAILURES.has(code)) return false;
  return code === 'ECONNREFUSED' || IDEMPOTENT.has(method ?? 'GET');
}

/** A service that let its deadline pass without answering (a blocked process) gets this long more. */
const ANSWER_GRACE_MS = 1_000;

/**
 * Gives a proxied request its deadline: the route class's budget, or less when the client asked for
 * less, sent on as X-Request-Timeout-Ms so the service stops its work when the budget is spent.
 * Returns how long the gateway waits for the service's answer.
 */
export function stampDeadline(req: http.IncomingMessage, path: string, options: UpstreamOptions): number {
  const classBudget = budgetFor(options.deadlines, req.method, path, req.headers['content-type']);
  const budget = requestBudgetMs(req.headers[DEADLINE_HEADER], classBudget, classBudget);
  req.headers[DEADLINE_HEADER] = String(budget);
  return Math.min(options.timeoutMs, budget + ANSWER_GRACE_MS);
}

/**
 * An unreachable service (refused, or its connection closed) is 503; one that does not answer in
 * time (the deadline, or a reset after the request was sent) 504; in the envelope of the path's group.
 */
export function answerUpstreamFailure(
  service: ServiceName,
  err: Error,
  req: http.IncomingMessage,
  out: http.ServerResponse,
  logger: Logger,
): void {
  const code = (err as NodeJS.ErrnoException).code;
  // a hang-up after the request was sent (ECONNRESET) counts as a service that did not answer;
  // undici's lost connection (UND_ERR_SOCKET: a replica closing or killed) as an unavailable one
  const timedOut = code === 'ETIMEDOUT' || /timeout/i.test(err.message) || code === 'ECONNRESET';
  upstreamErrors.inc({ upstream: service, reason: upstreamErrorReason(code, timedOut) });
  const appError = timedOut
    ? new AppError('UPSTREAM_TIMEOUT', `The ${service} service did not answer in time`)
    : new AppError('SERVICE_UNAVAILABLE', `The ${service} service is unavailable`);
  logger.warn({ err, service, code }, 'upstream failure');
  if (!('writeHead' in out) || out.headersSent) return void out.end?.();
  out.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8' });
  out.end(JSON.stringify(errorBodyForPath(req.url ?? '/', appError)));
}

/** A small fixed set of reasons for the upstream-errors counter. */
function upstreamErrorReason(code: string | undefined, timedOut: boolean): string {
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  return timedOut ? 'timeout' : 'other';
}

const upstreamSeries = new Map<string, HistogramSeries>();

/** Records how long a service took to answer (its response head, since `started` = performance.now()), by status class. */
export function observeUpstream(service: ServiceName, started: number, status: number): void {
  const statusLabel = statusClass(status);
  const key = `${service} ${statusLabel}`;
  let series = upstreamSeries.get(key);
  if (!series) upstreamSeries.set(key, (series = upstreamDuration.series(service, statusLabel)));
  upstreamDuration.observe(series, (performance.now() - started) / 1000);
}

/**
 * The express path's proxy step: each request to the service owning its path (longest prefix),
 * through the same forwarder as the fast path, with the body the edge read (JSON, cleaned; a keyed
 * request's whole body) or else the client's stream; other paths fall through (404).
 */
export function proxyRoutes(forward: ForwardRequest): RequestHandler {
  const asIs = () => undefined;
  return (req, res, next) => {
    const service = serviceFor(req.path);
    if (!service) return next();
    res.locals.service = service;
    // the client address derived with TRUST_PROXY, as the only entry: what a client wrote in
    // X-Forwarded-For itself never reaches a service
    req.headers['x-forwarded-for'] = req.ip ?? 'unknown';
    forward(req, res, service, asIs, forwardedBody(req));
  };
}

/**
 * The body the edge read, as the service gets it: the JSON (cleaned), or a keyed request's whole
 * body; undefined when the client's stream is forwarded as it comes.
 */
export const forwardedBody = (req: BodyRequest & BufferedRequest): Buffer | undefined =>
  req.bufferedBody ?? (req.body !== undefined ? Buffer.from(JSON.stringify(req.body)) : undefined);
