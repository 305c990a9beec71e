import type http from 'node:http';
import { Client, type Dispatcher, Pool } from 'undici';
import { injectTraceContext } from '@lingua/telemetry';
import type { ServiceName } from '../routes';
import { upstreamRetries } from '@lingua/metrics';
import {
  answerUpstreamFailure,
  mayRetry,
  observeUpstream,
  retryPauseMs,
  stampDeadline,
  UPSTREAM_RETRIES,
  type UpstreamOptions,
} from './proxy';

const ignore = () => undefined;

/** Sends the response of a proxied request, with the gateway's headers on top of the service's. */
export type ForwardRequest = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  service: ServiceName,
  /** Called before the response head is written, the service's or a 503/504 (Cache-Control default…). */
  beforeHead: (res: http.ServerResponse) => void,
  /**
   * The body as the edge read it (JSON, cleaned; a keyed request's whole body), sent in place of
   * the client's stream: with its own length, and again on a retry.
   */
  body?: Buffer,
) => void;

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded; undici frames the upstream request itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * The gateway's one proxy, for both request paths (the fast path and express: docs/adr/0035): one
 * undici `Pool` per service (keep-alive connections, llhttp parsing, no per-request
 * ClientRequest/IncomingMessage objects), which measured about 30 % less CPU per proxied request
 * than `http.request` over a keep-alive agent. X-Forwarded-* set when absent, a Content-Length of 0
 * on body-less DELETE/OPTIONS, hop-by-hop headers dropped both ways, the trace context injected,
 * the body streamed both ways with back-pressure (or the edge's buffered body), the deadline,
 * retries on a new connection, and the 503/504 envelopes.
 */
export function createForwarder(
  services: Record<ServiceName, string>,
  options: UpstreamOptions,
): ForwardRequest & { close(): Promise<void> } {
  const pools = Object.fromEntries(
    (Object.keys(services) as ServiceName[]).map((s) => {
      const url = new URL(services[s]);
      const pool = new Pool(url.origin, { connections: 256, keepAliveTimeout: 4_000 });
      return [s, { pool, host: url.host, origin: url.origin }];
    }),
  ) as Record<ServiceName, { pool: Pool; host: string; origin: string }>;

  const forward: ForwardRequest = (req, res, service, beforeHead, body) => {
    const incoming = req.headers;
    const host = incoming.host;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const waitMs = stampDeadline(req, query === -1 ? url : url.slice(0, query), options);
    // both paths have put the client address they derived (TRUST_PROXY) here; the socket's otherwise
    if (incoming['x-forwarded-for'] === undefined) incoming['x-forwarded-for'] = req.socket.remoteAddress;
    if (incoming['x-forwarded-port'] === undefined)
      incoming['x-forwarded-port'] = /:(\d+)$/.exec(host ?? '')?.[1] ?? '80';
    if (incoming['x-forwarded-proto'] === undefined) incoming['x-forwarded-proto'] = 'http';
    incoming['x-forwarded-host'] = incoming['x-forwarded-host'] || host || '';
    if (body !== undefined) {
      // the body the edge read: its own length, whatever framing the client used
      incoming['content-length'] = String(body.length);
      delete incoming['transfer-encoding'];
    }
    const streamed =
      body === undefined &&
      (incoming['content-length'] !== undefined || incoming['transfer-encoding'] !== undefined);
    if ((req.method === 'DELETE' || req.method === 'OPTIONS') && !streamed && body === undefined)
      incoming['content-length'] = '0';
    const target = pools[service];
    // our trace context replaces the client's (traceparent, tracestate)
    const trace: Record<string, string> = {};
    injectTraceContext((k, v) => (trace[k.toLowerCase()] = v));
    const headers: string[] = [];
    if (host === undefined) headers.push('host', target.host);
    for (const name in trace) headers.push(name, trace[name]!);
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || name in trace || HOP_BY_HOP.has(name)) continue;
      if (typeof value === 'string') headers.push(name, value);
      else for (const one of value) headers.push(name, one);
    }

    let controller: Dispatcher.DispatchController | undefined;
    const fail = (err: Error) => {
      // the client left: nothing to answer
      if (res.destroyed || (!req.socket.writable && !res.headersSent)) return;
      if (!res.headersSent) beforeHead(res);
      answerUpstreamFailure(service, err, req, res, options.logger);
    };
    // a body-less request's socket errors end the response too ('close' below)
    if (streamed) req.on('error', (err) => controller?.abort(err));
    res.on('close', () => {
      if (!res.writableFinished) controller?.abort(new Error('client closed the connection'));
    });
    // an error on a client socket that is already gone must not crash the gateway
    res.on('error', ignore);

    // upstream latency from the first attempt: what the gateway waited, retries included
    const started = performance.now();
    // A retry opens a connection of its own: the pool's other idle connections may lead to the same
    // lost replica (a TCP balancer keeps each connection on one replica) and fail alike.
    let retryClient: Client | undefined;
    const closeRetryClient = () => void retryClient?.close().catch(ignore);
    const send = (attempt: number) =>
      (attempt === 0 ? target.pool : (retryClient = new Client(target.origin))).dispatch(
        {
          origin: undefined,
          path: url,
          method: req.method as Dispatcher.HttpMethod,
          headers,
          body: body ?? (streamed ? req : null),
          headersTimeout: waitMs,
          bodyTimeout: options.timeoutMs,
        },
        {
          onRequestStart(c) {
            controller = c;
            // the client left while this attempt was connecting (a retry opens its own connection)
            if (res.destroyed && !res.writableFinished) c.abort(new Error('client closed the connection'));
          },
          onResponseStart(c, status, out, statusMessage) {
            observeUpstream(service, started, status);
            if (res.destroyed) return void c.abort(new Error('client closed the connection'));
            if (res.headersSent) return;
            for (const name in out) {
              const value = out[name];
              if (value === undefined || HOP_BY_HOP.has(name)) continue;
              try {
                res.setHeader(name, value);
              } catch {
                /* a header node would not send: dropped */
              }
            }
            // an HTTP/1.0 client keeps its connection only when it asked to, and never while the gateway drains
            if (req.httpVersion === '1.0' && !res.hasHeader('connection'))
              res.setHeader('connection', incoming.connection || 'close');
            res.statusCode = status;
            if (statusMessage) res.statusMessage = statusMessage;
            beforeHead(res);
          },
          onResponseData(c, chunk) {
            // resumed on 'drain' (listened for only then: most answers fit the socket's buffer)
            if (!res.write(chunk)) {
              c.pause();
              res.once('drain', () => c.resume());
            }
          },
          onResponseEnd() {
            closeRetryClient();
            res.end();
            // the service answered before the body was sent (413, 401…): drop the rest
            if (streamed && !req.readableEnded) req.resume();
          },
          onResponseError(_c, err) {
            closeRetryClient();
            if (streamed && !req.readableEnded) req.resume();
            if (res.headersSent) return void res.destroy(err);
            // again, each time on a connection of its own (the pool drops the failed one)
            if (attempt < UPSTREAM_RETRIES && !res.destroyed && mayRetry(req.method, err, streamed)) {
              options.logger.debug(
                { err, service, retry: attempt + 1 },
                'upstream connection failed; retrying',
              );
              upstreamRetries.inc({ upstream: service });
              const pause = retryPauseMs(attempt + 1);
              // the client may have left during the pause
              const again = () => (res.destroyed ? undefined : send(attempt + 1));
              return void (pause > 0 ? setTimeout(again, pause) : again());
            }
            fail(err);
          },
        },
      );
    send(0);
  };
  return Object.assign(forward, {
    async close() {
      await Promise.all(Object.values(pools).map(({ pool }) => pool.close()));
    },
  });
}
