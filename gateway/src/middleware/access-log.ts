import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '@lingua/logger';

/** Health probes are not logged. */
const isProbe = (path: string) => path.startsWith('/health') || path.startsWith('/api/health');

/**
 * A light access log: one line per request when it finishes. Successful requests are sampled
 * (`sampleRate`; full pino-http logging measured ~30 % of gateway throughput), failures (4xx, 5xx)
 * always logged. Shared by the express stack and the fast path.
 */
export function accessLogger(logger: Logger, sampleRate: number) {
  return (req: IncomingMessage, path: string, res: ServerResponse, locals: Record<string, unknown>) => {
    if (isProbe(path)) return;
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      if (status < 400 && (sampleRate <= 0 || (sampleRate < 1 && Math.random() >= sampleRate))) return;
      const line = {
        method: req.method,
        path,
        status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        service: locals.service as string | undefined,
        request_id: res.getHeader('x-request-id'),
        ...(sampleRate < 1 && status < 400 && { sampled: sampleRate }),
      };
      if (status >= 500) logger.error(line, 'request');
      else if (status >= 400) logger.warn(line, 'request');
      else logger.info(line, 'request');
    });
  };
}

/** The express face of the access log. */
export function accessLog(logger: Logger, sampleRate: number): RequestHandler {
  const track = accessLogger(logger, sampleRate);
  return (req, res, next) => {
    track(req, req.path, res, res.locals);
    next();
  };
}
