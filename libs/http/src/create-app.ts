import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from '@lingua/logger';
import { accessLog } from './access-log';
import { deadlineMiddleware, type DeadlineOptions } from './deadline';
import { envelopeStyleFor } from './envelope-style';
import { errorHandler, notFoundHandler } from './error-handler';
import { requestIdMiddleware } from './request-id';
import { tracingMiddleware } from './tracing-middleware';
import type { TrustProxy } from './trust-proxy';
import { localiseZodMessages } from './i18n';

export interface CreateAppOptions {
  logger: Logger;
  /** express.json limit; larger bodies get 413 in the route's envelope. */
  jsonLimit?: string;
  /** false for the gateway, which streams bodies to services instead of parsing them. */
  parseJson?: boolean;
  /** Skip access logs for these paths (default: the health probes). */
  quietPaths?: string[];
  /** Share (0..1, default 1) of successful requests that get an access line; failures always do. */
  accessLogSampleRate?: number;
  /** Per-request deadlines (see deadline.ts); default 10 s without a header, at most 60 s. */
  deadline?: Pick<DeadlineOptions, 'defaultMs' | 'maxMs'>;
  /** Who may tell us the client's address (TRUST_PROXY, see trust-proxy.ts); default loopback. */
  trustProxy?: TrustProxy;
}

export const DEFAULT_DEADLINE = { defaultMs: 10_000, maxMs: 60_000 };

/**
 * An express app with the house middleware in the house order: trace span, request id, deadline, access
 * log, JSON body limit, envelope family. Add routes, then call finishApp().
 */
export function createApp(options: CreateAppOptions): Express {
  localiseZodMessages();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.use(tracingMiddleware);
  app.use(requestIdMiddleware);
  const answer = errorHandler(options.logger);
  app.use(
    deadlineMiddleware({
      ...(options.deadline ?? DEFAULT_DEADLINE),
      onExpired: (req, res, err) => answer(err, req as Request, res as Response, () => undefined),
    }),
  );
  app.use(
    accessLog(options.logger, {
      sampleRate: options.accessLogSampleRate ?? 1,
      ...(options.quietPaths && { quietPaths: options.quietPaths }),
    }),
  );
  if (options.parseJson !== false) app.use(express.json({ limit: options.jsonLimit ?? '100kb' }));
  app.use((req, res, next) => {
    res.locals.envelopeStyle = envelopeStyleFor(req.path);
    next();
  });
  return app;
}

/** 404 for unknown routes and the single error mapper, both in the route's envelope family. */
export function finishApp(app: Express, logger: Logger): Express {
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
