import http from 'node:http';
import type { RequestHandler } from 'express';
import {
  createProxyMiddleware,
  debugProxyErrorsPlugin,
  fixRequestBody,
  proxyEventsPlugin,
} from 'http-proxy-middleware';
import { AppError } from '@lingua/errors';
import { DEADLINE_HEADER, errorBodyForPath, requestBudgetMs } from '@lingua/http';
import type { Logger } from '@lingua/logger';
import {
  type HistogramSeries,
  statusClass,
  upstreamDuration,
  upstreamErrors,
  upstreamRetries,
} from '@lingua/metrics';
import { injectTraceContext } from '@lingua/telemetry';
import { budgetFor, type DeadlineBudgets } from '../domain/deadlines';
import { type ServiceName, serviceFor } from '../routes';

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
 * Keep-alive to the services: HPM's default opens a connection per request and tells the client
 * `Connection: close` (measured here: 2.3× slower). Idle sockets close a second before the
 * services' keep-alive timeout (node's agent follows their `Keep-Alive: timeout=5` hint), so a
 * reused socket is never closed under a request, nor by a draining replica (IDLE_WINDOW_MS).
 */
export const upstreamAgent = new http.Agent({
  keepAlive: true,
  maxSockets: 256,
  keepAliveMsecs: 1_000,
  timeout: 60_000,
});

/**
 * An unreachable service is 503, one that does not answer in time (socket timeout or hang-up) 504,
 * in the envelope of the path's group. Shared by the http-proxy-middleware proxies and the fast path.
 */
export function answerUpstreamFailure(
  service: ServiceName,
  err: Error,
  req: http.IncomingMessage,
  out: http.ServerResponse,
  logger: Logger,
  /** Whether the gateway itself ended the wait, when the caller knows (see ECONNRESET below). */
  abortedAtDeadline?: boolean,
): void {
  const code = (err as NodeJS.ErrnoException).code;
  // http-proxy aborts a request at its timeout with ECONNRESET ("socket hang up"), the code of a
  // lost connection too: the express path says which it was; undici's lost connection
  // (UND_ERR_SOCKET: a replica closing or killed) is an unavailable service, not a timeout
  const timedOut =
    code === 'ETIMEDOUT' || /timeout/i.test(err.message) || (abortedAtDeadline ?? code === 'ECONNRESET');
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
 * A retry's connection is a new one, closed after its answer: the agent's other idle sockets may
 * lead to the same lost replica (a TCP balancer keeps each connection on one replica) and fail alike.
 */
const retryAgent = new http.Agent({ keepAlive: false });

/** One streaming proxy per service; an unreachable service is 503, a slow one 504, in the path's envelope. */
function proxyTo(service: ServiceName, target: string, options: UpstreamOptions): RequestHandler {
  // the first attempt on the pool, then UPSTREAM_RETRIES attempts each on a connection of its own
  let next: RequestHandler | undefined;
  for (let retry = UPSTREAM_RETRIES; retry >= 1; retry--) {
    const after = next;
    next = proxyWith(service, target, options, retryAgent, () => after);
  }
  const first = next;
  return proxyWith(service, target, options, upstreamAgent, () => first);
}

function proxyWith(
  service: ServiceName,
  target: string,
  options: UpstreamOptions,
  agent: http.Agent,
  retryProxy: () => RequestHandler | undefined,
): RequestHandler {
  return createProxyMiddleware({
    target,
    agent,
    proxyTimeout: options.timeoutMs,
    xfwd: true,
    // without HPM's logger plugin, which builds a URL and a log string for every response
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyReq: (proxyReq, req, res) => {
        // replaces the fixed proxyTimeout by this request's own wait (its deadline, set below)
        proxyReq.setTimeout((res as http.ServerResponse & { locals: { waitMs: number } }).locals.waitMs);
        // http-proxy aborts a request at its timeout with the same ECONNRESET as a lost connection
        proxyReq.once('timeout', () => ((req as Attempted).upstreamTimedOut = true));
        injectTraceContext((k, v) => proxyReq.setHeader(k, v));
        // the client address derived with TRUST_PROXY, as the only entry: what a client wrote in
        // X-Forwarded-For itself never reaches a service
        const ip = (req as http.IncomingMessage & { ip?: string }).ip;
        if (ip) proxyReq.setHeader('x-forwarded-for', ip);
        // JSON bodies were read (and cleaned) at the edge, a keyed request's whole body for its
        // fingerprint (middleware/idempotency.ts); everything else streams as it came
        const buffered = (req as Attempted).bufferedBody;
        if (buffered) proxyReq.write(buffered);
        else fixRequestBody(proxyReq, req);
      },
      proxyRes: (proxyRes, _req, res) => {
        // Connection is hop-by-hop: the service's keep-alive must not replace ours (a draining
        // gateway's `close`, which moves the ingress's next requests to another replica); when
        // absent, the proxy sets keep-alive as usual
        const ours = (res as http.ServerResponse).getHeader('connection');
        if (ours === undefined) delete proxyRes.headers.connection;
        else proxyRes.headers.connection = String(ours);
        const started = (res as http.ServerResponse & { locals: { upstreamStarted?: number } }).locals
          .upstreamStarted;
        if (started !== undefined) observeUpstream(service, started, proxyRes.statusCode ?? 0);
      },
      error: (err, req, res) => {
        const attempt = req as Attempted;
        const out = res as http.ServerResponse;
        // on a new connection, as the fast path does (retryProxy is undefined after the last retry)
        const retry = retryProxy();
        if (
          retry !== undefined &&
          !attempt.upstreamTimedOut &&
          !out.headersSent &&
          !out.destroyed &&
          mayRetry(req.method, err, streamsItsBody(attempt))
        ) {
          attempt.upstreamRetries = (attempt.upstreamRetries ?? 0) + 1;
          options.logger.debug(
            { err, service, retry: attempt.upstreamRetries },
            'upstream connection failed; retrying',
          );
          upstreamRetries.inc({ upstream: service });
          const send = () =>
            // the client may have left during the pause
            out.destroyed
              ? undefined
              : retry(attempt as Parameters<RequestHandler>[0], out as Parameters<RequestHandler>[1], () =>
                  answerUpstreamFailure(
                    service,
                    err,
                    attempt,
                    out,
                    options.logger,
                    attempt.upstreamTimedOut === true,
                  ),
                );
          const pause = retryPauseMs(attempt.upstreamRetries);
          return void (pause > 0 ? setTimeout(send, pause) : send());
        }
        answerUpstreamFailure(service, err, attempt, out, options.logger, attempt.upstreamTimedOut === true);
      },
    },
  });
}

type Attempted = http.IncomingMessage & {
  upstreamRetries?: number;
  upstreamTimedOut?: boolean;
  /** Set when the edge read the body (JSON): the proxy writes it again, so it can be sent twice. */
  body?: unknown;
  /** Set when the edge read a streamed body whole (a request with an Idempotency-Key): sent the same way. */
  bufferedBody?: Buffer;
};

/** A body the proxy streams from the client (an upload) cannot be sent a second time. */
const streamsItsBody = (req: Attempted) =>
  req.body === undefined &&
  req.bufferedBody === undefined &&
  ((req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
    req.headers['transfer-encoding'] !== undefined);

/** Sends each request to the service owning its path (longest prefix); other paths fall through (404). */
export function proxyRoutes(services: Record<ServiceName, string>, options: UpstreamOptions): RequestHandler {
  const proxies = Object.fromEntries(
    (Object.keys(services) as ServiceName[]).map((s) => [s, proxyTo(s, services[s], options)]),
  ) as Record<ServiceName, RequestHandler>;
  return (req, res, next) => {
    const service = serviceFor(req.path);
    if (!service) return next();
    res.locals.service = service;
    res.locals.waitMs = stampDeadline(req, req.path, options);
    res.locals.upstreamStarted = performance.now();
    return proxies[service](req, res, next);
  };
}
