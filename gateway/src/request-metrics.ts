import type { IncomingMessage } from 'node:http';
import { UNMATCHED_ROUTE } from '@lingua/metrics';
import { ROUTES, matchesPrefix } from './routes';

/** Paths the gateway answers itself, as route labels (their own group each). */
const OWN = ['/api/health/detailed', '/api/health', '/health', '/openapi.json', '/docs', '/api/v1/status'];
const ADMIN_API_KEYS = '/api/v1/admin/api-keys';

/** Every prefix label, longest first, so `/api/v1/admin/subscriptions` wins over `/api/v1/admin`. */
const PREFIXES = [...OWN, ADMIN_API_KEYS, ...ROUTES.flatMap((r) => r.prefixes)].sort(
  (a, b) => b.length - a.length,
);

/**
 * The gateway's `route` label: the route-table prefix (the API group) a request fell under, e.g.
 * `/api/flashcards`, never the path itself. The gateway proxies by prefix and does not know the
 * services' templates; those are labelled by the services themselves. Anything outside the table is
 * one `unmatched` series, so scanners probing random paths add no series.
 */
export function gatewayRouteLabel(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  for (const prefix of PREFIXES) if (matchesPrefix(path, prefix)) return prefix;
  return UNMATCHED_ROUTE;
}
