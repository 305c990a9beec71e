import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { extractTraceContext, tracer } from '@lingua/telemetry';

/**
 * A SERVER span per request, continuing the caller's trace from `traceparent`; the rest of the
 * request runs inside it, so outgoing calls and published events join the same trace.
 */
export const tracingMiddleware: RequestHandler = (req, res, next) => {
  const parent = extractTraceContext({
    get: (k) => req.header(k) ?? undefined,
    keys: () => Object.keys(req.headers),
  });
  const span = tracer().startSpan(
    `${req.method} ${req.path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } },
    parent,
  );
  res.once('finish', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
};
