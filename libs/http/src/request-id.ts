import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { runWithRequestContext } from '@lingua/logger';
import { negotiateLanguage } from './i18n';

export const REQUEST_ID_HEADER = 'x-request-id';
export const CORRELATION_ID_HEADER = 'x-correlation-id';

// Client-chosen ids are echoed into logs and headers, so only plain tokens of sane length are kept.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function incoming(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && SAFE_ID.test(v) ? v : undefined;
}

/**
 * Takes X-Request-ID (or makes one) and X-Correlation-ID (or reuses the request id), echoes both,
 * picks the caller's language, and runs the rest of the request inside that context.
 */
export const requestIdMiddleware: RequestHandler = (req, res, next) => {
  const requestId = incoming(req.headers[REQUEST_ID_HEADER]) ?? randomUUID();
  const correlationId = incoming(req.headers[CORRELATION_ID_HEADER]) ?? requestId;
  req.headers[REQUEST_ID_HEADER] = requestId;
  req.headers[CORRELATION_ID_HEADER] = correlationId;
  res.setHeader('X-Request-ID', requestId);
  res.setHeader('X-Correlation-ID', correlationId);
  // what the caller reads (messages, texts, prices) follows Accept-Language; caches key on it
  const language = negotiateLanguage(req);
  res.setHeader('Content-Language', language);
  res.appendHeader('Vary', 'Accept-Language');
  runWithRequestContext({ requestId, correlationId, language }, next);
};
