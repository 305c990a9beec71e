import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import {
  type accessLogger,
  clientAddressFor,
  errorHandler,
  requestIdMiddleware,
  inServerSpan,
  type TrustProxy,
} from '@lingua/http';
import type { Logger } from '@lingua/logger';
import type { Caller } from './domain/caller';
import { carriesIdempotencyKey } from './domain/idempotency';
import { type BodyCheck, checkConventions, defaultCacheControl } from './middleware/conventions';
import { type Admit, admitThen } from './middleware/edge-auth';
import type { ForwardRequest } from './middleware/forwarder';
import { forwardedBody } from './middleware/proxy';
import { matchesPrefix, type ServiceName, serviceFor } from './routes';

/** Paths under a routed prefix that the gateway answers itself (express routes). */
const OWN_PATHS = ['/api/v1/status', '/api/v1/admin/api-keys'];

export interface FastPathDeps {
  /** The full express app: every request the fast path does not take. */
  app: Express;
  logger: Logger;
  admit: Admit;
  /** The body check of both paths (JSON read and cleaned, uploads size-checked), after admission. */
  checkBody: BodyCheck;
  forward: ForwardRequest;
  track: ReturnType<typeof accessLogger>;
  /** The security headers of API (JSON) responses: the fast path serves no HTML. */
  securityHeaders: RequestHandler;
  compress: RequestHandler;
  corsOrigins: string[];
  /** TRUST_PROXY, as the express app has it (`trust proxy`). */
  trustProxy: TrustProxy;
}

/** The headers a middleware sets on every response, captured once (helmet's are static here: no nonces). */
function staticHeadersOf(middleware: RequestHandler): [string, string | number | string[]][] {
  const headers: [string, string | number | string[]][] = [];
  const res = {
    setHeader: (name: string, value: string | number | string[]) => headers.push([name, value]),
    removeHeader: () => undefined,
    getHeader: () => undefined,
  };
  middleware(
    { headers: {}, method: 'GET', url: '/' } as Request,
    res as unknown as Response,
    () => undefined,
  );
  return headers;
}

/**
 * The gateway's request listener. Proxied requests (reads, deletes, JSON writes, uploads) take a
 * lean path on plain node:http that runs the same steps in the same order as the express stack,
 * through the same modules: trace span and request ids (@lingua/http), access log, helmet's headers,
 * compression when asked for, conventions, admission (edge auth, gates, rate limits:
 * createAdmission), the body check (JSON read, limited and cleaned; uploads size-checked), then the
 * forwarder both paths share (middleware/forwarder.ts). Errors are rendered by the same express
 * error handler. The rest (the gateway's own routes, health, docs, requests with an
 * Idempotency-Key, CORS requests when origins are configured, 404s) goes to express.
 */
export function fastPathListener(deps: FastPathDeps): RequestListener {
  // the client address as express's req.ip derives it (proxy-addr, the same `trust proxy` value)
  const clientAddress = clientAddressFor(deps.trustProxy);
  const clientIp = (req: IncomingMessage): string => clientAddress(req) ?? 'unknown';
  const securityHeaders = staticHeadersOf(deps.securityHeaders);
  const corsActive = deps.corsOrigins.length > 0;
  const pendingError = new WeakMap<IncomingMessage, unknown>();
  const errors = express();
  errors.disable('x-powered-by');
  errors.set('trust proxy', deps.app.get('trust proxy'));
  errors.use((req, _res, next) => next(pendingError.get(req)));
  errors.use(errorHandler(deps.logger));
  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    pendingError.set(req, err);
    errors(req, res);
  };

  function fastService(req: IncomingMessage, path: string): ServiceName | undefined {
    if (path.charCodeAt(0) !== 47 /* "/" */) return undefined;
    if (corsActive && req.headers.origin !== undefined) return undefined;
    if (OWN_PATHS.some((p) => matchesPrefix(path, p))) return undefined;
    // a POST or PATCH with an Idempotency-Key: express keeps its answer (middleware/idempotency.ts)
    if (carriesIdempotencyKey(req.method, req.headers)) return undefined;
    return serviceFor(path);
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const service = fastService(req, path);
    if (!service) return void deps.app(req, res);

    const locals: Record<string, unknown> = { service };
    const cacheControl = (out: ServerResponse) => {
      if (!out.getHeader('cache-control')) out.setHeader('Cache-Control', defaultCacheControl(req.method));
    };
    const admitAndForward = () => {
      const error = checkConventions(req, path, res);
      if (error) return fail(req, res, error);
      const ip = clientIp(req);
      admitThen(
        deps.admit,
        { req, path, ip, res, locals },
        () => {
          // the services get the address derived here as the only entry, never the client's own list
          req.headers['x-forwarded-for'] = ip;
          if (req.headers['content-type'] === undefined) return forward();
          try {
            deps.checkBody(req, locals.caller as Caller | undefined, (err) =>
              err ? refuse(err) : forward(),
            );
          } catch (err) {
            refuse(err); // never an unhandled rejection from inside admission's promise
          }
        },
        refuse,
      );
    };
    const forward = () => {
      try {
        deps.forward(req, res, service, cacheControl, forwardedBody(req));
      } catch (err) {
        fail(req, res, err); // as express would: a 500, never an unhandled rejection
      }
    };
    const refuse = (err: unknown) => {
      cacheControl(res);
      fail(req, res, err);
    };
    const afterIds = () => {
      deps.track(req, path, res, locals);
      for (const [name, value] of securityHeaders) res.setHeader(name, value);
      if (req.headers['accept-encoding']) deps.compress(req as Request, res as Response, admitAndForward);
      else admitAndForward();
    };
    try {
      inServerSpan(req.method, path, req.headers, res, () =>
        requestIdMiddleware(req as Request, res as Response, afterIds),
      );
    } catch (err) {
      fail(req, res, err); // a synchronous throw is a 500 as on express, never a crash
    }
  };
}
