import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { httpInFlight, httpServer } from './catalogue';
import type { HistogramSeries } from './fast-metrics';
import { methodLabel, statusClass } from './labels';

/** For requests no route matched (404s, requests refused before routing): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

const ROUTE = Symbol('lingua.route');
const TEMPLATE = Symbol('lingua.routeTemplate');

type WithTemplate = IncomingMessage & { [TEMPLATE]?: string };

/**
 * Makes express record each request's route template, e.g. `/api/flashcards/:id` (the router's mount
 * path plus the route's path), at the moment it assigns `req.route`: by then the mount path is set,
 * whereas by the time the response is written a router that passed an error on has restored it.
 * Installed once on express's request prototype (`captureRouteTemplates(express.request)`), so a
 * request pays one string concatenation, not a property definition.
 */
export function captureRouteTemplates(requestPrototype: object): void {
  if (Object.prototype.hasOwnProperty.call(requestPrototype, TEMPLATE)) return;
  Object.defineProperty(requestPrototype, TEMPLATE, { value: undefined, writable: true });
  Object.defineProperty(requestPrototype, 'route', {
    configurable: true,
    enumerable: true,
    get(this: { [ROUTE]?: unknown }) {
      return this[ROUTE];
    },
    set(this: { [ROUTE]?: unknown; [TEMPLATE]?: string; baseUrl?: string }, value: { path?: unknown }) {
      this[ROUTE] = value;
      const path = value?.path;
      // a route declared for several paths is labelled by all of them, joined: still one series
      const own = Array.isArray(path) ? path.join('|') : String(path);
      this[TEMPLATE] = `${this.baseUrl ?? ''}${own}`;
    },
  });
}

/** The template captured for this request, if express matched a route (see captureRouteTemplates). */
export const routeTemplateOf = (req: IncomingMessage): string | undefined => (req as WithTemplate)[TEMPLATE];

/**
 * Wraps a request listener (outermost, so shed and refused requests count too) with RED metrics:
 * requests by route template, method and status class, a duration histogram, and in-flight. Series
 * are looked up in nested maps by their label values and kept, so a request costs two clock reads,
 * a close listener, three map lookups and a few additions (bench/metrics.js).
 */
export function instrumentHttp(
  service: string,
  listener: RequestListener,
  routeOf: (req: IncomingMessage, res: ServerResponse, expressRoute: string | undefined) => string,
): RequestListener {
  // route -> method -> status class -> series
  const series = new Map<string, Map<string, Map<string, HistogramSeries>>>();
  const inFlight = httpInFlight.series(service);
  const seriesFor = (route: string, method: string, status: string): HistogramSeries => {
    let byMethod = series.get(route);
    if (!byMethod) series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) byStatus.set(status, (s = httpServer.series(service, route, method, status)));
    return s;
  };
  return (req, res) => {
    const started = performance.now();
    inFlight.value++;
    // on, not once: a response closes once, and once's wrapper and removal cost on every request
    res.on('close', () => {
      inFlight.value--;
      // a response never finished (the client went away) is its own class, not a 2xx or a 5xx
      const status = res.writableFinished ? statusClass(res.statusCode) : 'aborted';
      const route = routeOf(req, res, (req as WithTemplate)[TEMPLATE]);
      httpServer.observe(
        seriesFor(route, methodLabel(req.method), status),
        (performance.now() - started) / 1000,
      );
    });
    listener(req, res);
  };
}
