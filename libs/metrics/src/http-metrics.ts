import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Counter, Histogram } from 'prom-client';
import { httpDuration, httpInFlight, httpRequests } from './catalogue';
import { methodLabel, statusClass } from './labels';

/** Names the route template of a finished request; never the raw path. */
export type RouteOf = (req: IncomingMessage, res: ServerResponse) => string;

/** For requests no route matched (404s, requests refused before routing): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

interface Series {
  count: Counter.Internal;
  duration: Histogram.Internal<string>;
}

/**
 * The template express matched, e.g. `/api/flashcards/:id`: the router's mount path plus the
 * route's path, captured when express assigns `req.route` (by then the mount path is set; by the
 * time the response is written, a router that passed an error on has already restored it).
 */
export function captureExpressRoute(req: IncomingMessage): () => string | undefined {
  let route: { path?: unknown } | undefined;
  let template: string | undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: { path?: unknown } | undefined) {
      route = value;
      const path = value?.path;
      // a route declared for several paths is labelled by all of them, joined: still one series
      const own = Array.isArray(path) ? path.join('|') : typeof path === 'string' ? path : String(path);
      template = `${(req as IncomingMessage & { baseUrl?: string }).baseUrl ?? ''}${own}`;
    },
  });
  return () => template;
}

/**
 * Wraps a request listener (outermost, so shed and refused requests count too) with RED metrics:
 * requests by route template, method and status class, a duration histogram, and in-flight. The
 * label children are looked up once per combination, so a request costs two map lookups, two
 * high-resolution clock reads and a close listener.
 */
export function instrumentHttp(
  service: string,
  listener: RequestListener,
  routeOf: (req: IncomingMessage, res: ServerResponse, expressRoute: string | undefined) => string,
): RequestListener {
  const series = new Map<string, Series>();
  const inFlight = httpInFlight.labels(service);
  const seriesFor = (route: string, method: string, status: string): Series => {
    const key = `${route} ${method} ${status}`;
    let s = series.get(key);
    if (!s) {
      const labels = { service, route, method, status_class: status };
      s = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
      series.set(key, s);
    }
    return s;
  };
  return (req, res) => {
    const started = process.hrtime.bigint();
    const expressRoute = captureExpressRoute(req);
    inFlight.inc();
    res.once('close', () => {
      inFlight.dec();
      // a response never finished (the client went away) is its own class, not a 2xx or a 5xx
      const status = res.writableFinished ? statusClass(res.statusCode) : 'aborted';
      const s = seriesFor(routeOf(req, res, expressRoute()), methodLabel(req.method), status);
      s.count.inc();
      s.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    listener(req, res);
  };
}
