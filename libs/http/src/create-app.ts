import express, { type Express, type RequestHandler } from 'express';
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
  /**
   * Share (0..1, default 1) of requests that get the full pino-http access log (and `req.log`). The
   * others pay for no per-request child logger: only their failures (4xx, 5xx) are logged, with a
   * short line. For hot routes, where the access log was a visible share of each request's CPU.
   */
  accessLogSampleRate?: number;
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
  const accessLog = pinoHttp({
    logger: options.logger,
    genReqId: (req) => String(req.headers['x-request-id']),
    autoLogging: { ignore: (req) => quiet.has((req.url ?? '').split('?')[0] ?? '') },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    quietReqLogger: true,
  });
  const rate = options.accessLogSampleRate ?? 1;
  app.use(rate >= 1 ? accessLog : sampledAccessLog(accessLog, rate, options.logger));
  if (options.parseJson !== false) app.use(express.json({ limit: options.jsonLimit ?? '100kb' }));
  app.use((req, res, next) => {
    res.locals.envelopeStyle = envelopeStyleFor(req.path);
    next();
  });
  return app;
}

/** The full access log for a `rate` share of requests; the rest log only their failures, briefly. */
function sampledAccessLog(full: RequestHandler, rate: number, logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (rate > 0 && Math.random() < rate) return full(req, res, next);
    const started = Date.now();
    res.once('finish', () => {
      const status = res.statusCode;
      if (status < 400) return;
      const line = {
        req: { id: req.headers['x-request-id'], method: req.method, url: req.originalUrl },
        res: { statusCode: status },
        responseTime: Date.now() - started,
        accessLogSampleRate: rate,
      };
      if (status >= 500) logger.error(line, 'request errored');
      else logger.warn(line, 'request completed');
    });
    next();
  };
}

/** 404 for unknown routes and the single error mapper, both in the route's envelope family. */
export function finishApp(app: Express, logger: Logger): Express {
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
