import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, fieldErrors, isAppError } from '@lingua/errors';
import type { Logger } from '@lingua/logger';
import { envelopeStyleFor, type EnvelopeStyle } from './envelope-style';
import { errorBody } from './envelopes';

/** Turns anything thrown into an AppError: the single error-to-response mapping of HTTP services. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
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
  return new AppError('INTERNAL_ERROR', 'Internal server error', { cause: err });
}

function styleOf(res: { locals: Record<string, unknown> }, path: string): EnvelopeStyle {
  return (res.locals.envelopeStyle as EnvelopeStyle | undefined) ?? envelopeStyleFor(path);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
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
