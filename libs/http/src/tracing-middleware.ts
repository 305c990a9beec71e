import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { tracer } from '@lingua/telemetry';

/**
 * Runs `next` in the SERVER span of a request, continuing the caller's trace from `traceparent`
 * (node's lower-case header object is a carrier as it is). A span that records nothing (no
 * exporter: @lingua/telemetry) gets no listener to end it.
 */
export function inServerSpan(
  method: string | undefined,
  path: string,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  next: () => void,
): void {
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(
    `${method} ${path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } },
    parent,
  );
  if (span.isRecording())
    res.on('finish', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  context.with(trace.setSpan(parent, span), next);
}

/**
 * A SERVER span per request, continuing the caller's trace from `traceparent`; the rest of the
 * request runs inside it, so outgoing calls and published events join the same trace.
 */
export const tracingMiddleware: RequestHandler = (req, res, next) =>
  inServerSpan(req.method, req.path, req.headers, res, next);
