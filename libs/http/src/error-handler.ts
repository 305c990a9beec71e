import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, fieldErrors, isAppError } from '@lingua/errors';
import type { Logger } from '@lingua/logger';
import { envelopeStyleFor, type EnvelopeStyle } from './envelope-style';
import { deadlineExceeded, wasAbandoned } from './deadline';
import { errorBody } from './envelopes';

/** Turns anything thrown into an AppError: the single error-to-response mapping of HTTP services. */
/**
 * Errors of a client library whose server is unreachable (node-redis, the MongoDB driver, mongoose,
 * a refused or reset socket): the request was fine, a dependency is down, so 503 with Retry-After
 * (the client should try again), never a 500 that reads as our bug.
 */
const OUTAGE_ERROR_NAMES = new Set([
  // node-redis
  'ClientClosedError',
  'ClientOfflineError',
  'SocketClosedUnexpectedlyError',
  'ConnectionTimeoutError',
  'SocketTimeoutError',
  'ReconnectStrategyError',
  // @lingua/redis: no replica took a durable write in time
  'ReplicasUnavailableError',
  // MongoDB driver and mongoose
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
/**
 * node-redis' Sentinel client throws plain Errors when it cannot find a primary (during a failover,
 * once its rediscoveries are spent): only the message tells them apart. Seen as 500s on logout in
 * the chaos suite's Redis primary kill.
 */
const OUTAGE_MESSAGES =
  /^(no valid master node|none of the sentinels are available|couldn't connect to any sentinels?( node)?|master node not enumerated)$/i;

export function isDependencyOutage(err: unknown): boolean {
  // the library's error may be wrapped (a cause chain); a few levels are enough
  for (
    let e = err as { name?: string; code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    depth++
  ) {
    // node-redis keeps name 'Error' and tells its errors apart by class
    if (OUTAGE_ERROR_NAMES.has(String(e.name)) || OUTAGE_ERROR_NAMES.has(e.constructor?.name ?? ''))
      return true;
    if (typeof e.code === 'string' && OUTAGE_CODES.has(e.code)) return true;
    if (e.constructor === Error && OUTAGE_MESSAGES.test(String((e as Error).message))) return true;
    // mongoose queues operations while disconnected and then fails them with this message
    if (e.name === 'MongooseError' && /buffering timed out/i.test(String((e as Error).message))) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** The database stopped an operation at its maxTimeMS (MongoDB code 50; FerretDB: a statement timeout). */
function isServerTimeLimit(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; message?: unknown } | undefined;
  return (
    typeof e?.name === 'string' &&
    e.name.startsWith('Mongo') &&
    (e.code === 50 || /statement timeout|operation exceeded time limit/i.test(String(e.message)))
  );
}

export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isServerTimeLimit(err)) return deadlineExceeded();
  if (err instanceof ZodError)
    return new AppError('VALIDATION_ERROR', 'Validation failed', { details: fieldErrors(err) });
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
  // body-parser failures are client mistakes, never 500s
  if (e?.type === 'entity.too.large')
    return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large', { cause: err });
  if (e?.type === 'entity.parse.failed')
    return new AppError('INVALID_INPUT', 'Request body is not valid JSON', { cause: err });
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return new AppError('INVALID_INPUT', 'Unsupported request encoding', { status: 415, cause: err });
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new AppError('INVALID_INPUT', e.message ?? 'Bad request', { status, cause: err });
  // after the client-mistake checks: an aborted upload is the client's, not an outage
  if (isDependencyOutage(err))
    return new AppError('SERVICE_UNAVAILABLE', 'A service dependency is temporarily unavailable', {
      cause: err as Error,
      headers: { 'Retry-After': '5' },
    });
  return new AppError('INTERNAL_ERROR', 'Internal server error', { cause: err });
}

function styleOf(res: { locals: Record<string, unknown> }, path: string): EnvelopeStyle {
  return (res.locals.envelopeStyle as EnvelopeStyle | undefined) ?? envelopeStyleFor(path);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    // answered at its deadline, or its client is gone: what the abandoned work threw reaches no one
    if (wasAbandoned(res)) return void logger.debug({ err }, 'abandoned request ended');
    if (res.headersSent) return next(err);
    const appError = toAppError(err);
    if (appError.isServerError)
      logger.error({ err: appError.cause ?? appError, code: appError.code }, 'request failed');
    else logger.debug({ code: appError.code, details: appError.details }, appError.message);
    if (appError.headers) res.set(appError.headers);
    const style = styleOf(res, req.path);
    const body = errorBody(style === 'plain' ? 'catalogue' : style, appError);
    res.status(appError.status).json(body);
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
};
