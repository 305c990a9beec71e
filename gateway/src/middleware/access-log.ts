import type { RequestHandler } from 'express';
import type { Logger } from '@lingua/logger';

/**
 * A light access log: one line per request when it finishes. Successful requests are sampled
 * (`sampleRate`; full pino-http logging measured ~30 % of gateway throughput), failures (4xx, 5xx)
 * always logged. Health probes are not logged.
 */
export function accessLog(logger: Logger, sampleRate: number): RequestHandler {
  return (req, res, next) => {
    if (req.path.startsWith('/health') || req.path.startsWith('/api/health')) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      if (status < 400 && (sampleRate <= 0 || (sampleRate < 1 && Math.random() >= sampleRate))) return;
      const line = {
        method: req.method,
        path: req.path,
        status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        service: res.locals.service as string | undefined,
        request_id: res.getHeader('x-request-id'),
        ...(sampleRate < 1 && status < 400 && { sampled: sampleRate }),
      };
      if (status >= 500) logger.error(line, 'request');
      else if (status >= 400) logger.warn(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}
