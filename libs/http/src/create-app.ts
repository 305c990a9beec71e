import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@lingua/logger';
import { envelopeStyleFor } from './envelope-style';
import { errorHandler, notFoundHandler } from './error-handler';
import { requestIdMiddleware } from './request-id';
import { tracingMiddleware } from './tracing-middleware';

export interface CreateAppOptions {
  logger: Logger;
  /** express.json limit; larger bodies get 413 in the route's envelope. */
  jsonLimit?: string;
  /** false for the gateway, which streams bodies to services instead of parsing them. */
  parseJson?: boolean;
  /** Skip access logs for these paths (health probes would drown the rest). */
  quietPaths?: string[];
}

/**
 * An express app with the house middleware in the house order: trace span, request id, access log, JSON body
 * limit, envelope family. Add routes, then call finishApp().
 */
export function createApp(options: CreateAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(tracingMiddleware);
  app.use(requestIdMiddleware);
  const quiet = new Set(options.quietPaths ?? ['/health', '/health/live', '/health/ready', '/api/health']);
  app.use(
    pinoHttp({
      logger: options.logger,
      genReqId: (req) => String(req.headers['x-request-id']),
      autoLogging: { ignore: (req) => quiet.has((req.url ?? '').split('?')[0] ?? '') },
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      quietReqLogger: true,
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
