import http from 'node:http';
import type { Logger } from '@lingua/logger';
import { injectTraceContext } from '@lingua/telemetry';
import type { ServiceName } from '../routes';
import { answerUpstreamFailure, upstreamAgent } from './proxy';

const ignore = () => undefined;

/** Sends the response of a proxied request, with the gateway's headers on top of the service's. */
export type ForwardRequest = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  service: ServiceName,
  /** Called before the response head is written, the service's or a 503/504 (Cache-Control default…). */
  beforeHead: (res: http.ServerResponse) => void,
) => void;

/**
 * The fast path's proxy: `http.request` over the same keep-alive agent, with what http-proxy-middleware
 * (httpxy) does for our options and nothing else: X-Forwarded-* set when absent (xfwd), a
 * Content-Length of 0 on body-less DELETE/OPTIONS, the trace context injected, the body streamed
 * both ways, the upstream timeout, and the same 503/504 envelopes. No per-request option objects,
 * plugin chain, URL parsing or event emitter hops.
 */
export function leanForwarder(
  services: Record<ServiceName, string>,
  options: { timeoutMs: number; logger: Logger },
): ForwardRequest {
  const targets = Object.fromEntries(
    (Object.keys(services) as ServiceName[]).map((s) => {
      const url = new URL(services[s]);
      return [s, { hostname: url.hostname, port: Number(url.port) || 80, host: url.host }];
    }),
  ) as Record<ServiceName, { hostname: string; port: number; host: string }>;

  return (req, res, service, beforeHead) => {
    // the client's headers (already rewritten by admission) plus ours, as one flat list: node then
    // writes the request head directly instead of storing every header one by one
    const incoming = req.headers;
    const host = incoming.host;
    if (incoming['x-forwarded-for'] === undefined) incoming['x-forwarded-for'] = req.socket.remoteAddress;
    if (incoming['x-forwarded-port'] === undefined)
      incoming['x-forwarded-port'] = /:(\d+)$/.exec(host ?? '')?.[1] ?? '80';
    if (incoming['x-forwarded-proto'] === undefined) incoming['x-forwarded-proto'] = 'http';
    incoming['x-forwarded-host'] = incoming['x-forwarded-host'] || host || '';
    if (
      (req.method === 'DELETE' || req.method === 'OPTIONS') &&
      !incoming['content-length'] &&
      !incoming['transfer-encoding']
    )
      incoming['content-length'] = '0';
    // as httpxy: a chunked request body ends the upstream connection after it, never reused mid-frame
    if (incoming['transfer-encoding'] !== undefined) incoming.connection = 'close';
    const target = targets[service];
    // our trace context replaces the client's (traceparent, tracestate), as setHeader would
    const trace: Record<string, string> = {};
    injectTraceContext((k, v) => (trace[k.toLowerCase()] = v));
    const headers: string[] = [];
    if (host === undefined) headers.push('host', target.host);
    for (const name in trace) headers.push(name, trace[name]!);
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || name in trace) continue;
      if (typeof value === 'string') headers.push(name, value);
      else for (const one of value) headers.push(name, one);
    }

    const proxyReq = http.request({
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers,
      agent: upstreamAgent,
    });
    proxyReq.setTimeout(options.timeoutMs, () => proxyReq.destroy());
    const fail = (err: Error) => {
      // the client left: nothing to answer
      if (!req.socket.writable && (err as NodeJS.ErrnoException).code === 'ECONNRESET')
        return void proxyReq.destroy();
      if (!res.headersSent) beforeHead(res);
      answerUpstreamFailure(service, err, req, res, options.logger);
    };
    req.on('error', fail);
    proxyReq.on('error', fail);
    res.on('close', () => {
      if (!res.writableFinished) proxyReq.destroy();
    });
    // as http-proxy-middleware's error plugin: an error on a client socket that is already gone must not crash the gateway
    res.on('error', ignore);

    proxyReq.on('response', (proxyRes) => {
      // the service answered before the body was sent (413, 401…): stop sending it
      if (!proxyReq.writableFinished)
        proxyRes.once('end', () => {
          if (!proxyReq.writableFinished) {
            req.unpipe(proxyReq);
            req.resume();
          }
        });
      const out = proxyRes.headers;
      const status = proxyRes.statusCode ?? 502;
      if (req.httpVersion === '1.0' || status === 204 || status === 304) delete out['transfer-encoding'];
      if (req.httpVersion === '1.0') out.connection = req.headers.connection || 'close';
      else if (!out.connection) out.connection = req.headers.connection || 'keep-alive';
      if (!res.headersSent) {
        for (const name in out) {
          const value = out[name];
          if (value === undefined) continue;
          try {
            res.setHeader(name, value);
          } catch {
            /* a header node would not send; httpxy drops it too */
          }
        }
        res.statusCode = status;
        if (proxyRes.statusMessage) res.statusMessage = proxyRes.statusMessage;
        beforeHead(res);
      }
      res.on('close', () => proxyRes.destroy());
      proxyRes.on('close', () => {
        if (!proxyRes.complete && !res.destroyed) res.destroy();
      });
      proxyRes.on('error', (err) => {
        if (!res.destroyed) res.destroy(err);
      });
      proxyRes.pipe(res);
    });
    req.pipe(proxyReq);
  };
}
