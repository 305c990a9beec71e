import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';
import { currentRequestContext } from './request-context';

export type Logger = pino.Logger;

const SECRET_KEYS = [
  'password',
  'newPassword',
  'confirmPassword',
  'currentPassword',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'identityToken',
  'authorizationCode',
  'serverAuthCode',
  'receipt_data',
  'new_receipt_data',
  'secret',
  'apiKey',
];

/** Secrets never reach a log line, at the top level, one level down, or in request headers. */
export const REDACTED_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
];

/**
 * JSON logger for a service. Each line carries the service name, the request and correlation ids of
 * the unit of work in progress, and the active trace/span ids, so logs and traces join up.
 */
export function createLogger(
  service: string,
  options: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const ctx = currentRequestContext();
        const span = trace.getActiveSpan()?.spanContext();
        return {
          ...(ctx && { request_id: ctx.requestId, correlation_id: ctx.correlationId }),
          ...(span && isSpanContextValid(span) && { trace_id: span.traceId, span_id: span.spanId }),
        };
      },
    },
    options.destination,
  );
}
