import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '@lingua/errors';
import { currentRequestContext } from '@lingua/logger';

/**
 * The time a request has left, in milliseconds, relative so that clocks need not agree. The gateway
 * sets it from the route's class; a client may ask for less, never for more.
 */
export const DEADLINE_HEADER = 'x-request-timeout-ms';

/** The budget a request gets: the header's value when sane, capped by the receiver's own maximum. */
export function requestBudgetMs(header: string | string[] | undefined, fallbackMs: number, maxMs: number) {
  const asked = Number(Array.isArray(header) ? header[0] : header);
  const budget = Number.isFinite(asked) && asked >= 1 ? Math.floor(asked) : fallbackMs;
  return Math.min(budget, maxMs);
}

export const deadlineExceeded = () =>
  new AppError('DEADLINE_EXCEEDED', 'The request did not complete within its deadline', {
    headers: { 'Retry-After': '1' },
  });

export interface DeadlineOptions {
  /** Budget when the caller sent none (a request that did not come through the gateway). */
  defaultMs: number;
  /** The most any caller can ask for. */
  maxMs: number;
  /** Answers the request when its deadline passes first (the app's error handler). */
  onExpired(req: IncomingMessage, res: ServerResponse, err: AppError): void;
}

/**
 * Gives each request a deadline and an AbortSignal, in its request context so that every layer below
 * sees them (gRPC deadlines, database maxTimeMS, lock waits). When the deadline passes the request is
 * answered 504 at once and its remaining work is told to stop; when the client goes away first, the
 * work is told to stop too. Runs inside the request-id middleware's context.
 */
export function deadlineMiddleware(options: DeadlineOptions): RequestHandler {
  return (req, res, next) => {
    const budget = requestBudgetMs(req.headers[DEADLINE_HEADER], options.defaultMs, options.maxMs);
    const controller = new AbortController();
    const ctx = currentRequestContext();
    if (ctx) {
      ctx.deadline = Date.now() + budget;
      ctx.signal = controller.signal;
    }
    res.locals.abandoned = controller.signal;
    const timer = setTimeout(() => {
      const err = deadlineExceeded();
      if (!res.headersSent) options.onExpired(req, res, err);
      controller.abort(err);
    }, budget);
    timer.unref();
    res.once('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished && !controller.signal.aborted)
        controller.abort(new AppError('REQUEST_ABANDONED', 'The client closed the connection'));
    });
    next();
  };
}

/** True once this request's work was abandoned (its answer is already out, or nobody will read it). */
export const wasAbandoned = (res: { locals: Record<string, unknown> }) =>
  (res.locals.abandoned as AbortSignal | undefined)?.aborted === true;
