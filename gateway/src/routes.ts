import type { GatewayConfig } from './config';

export type ServiceName = 'identity' | 'flashcards' | 'subscriptions' | 'ai' | 'notifications';

export interface Route {
  /** Path prefixes (whole segments) sent to the service, unchanged. */
  prefixes: string[];
  service: ServiceName;
}

/**
 * The route table: every path of the spec, by prefix, to the service that owns it. The longest
 * matching prefix wins (`/api/v1/admin/subscriptions` goes to subscriptions, the rest of
 * `/api/v1/admin` to identity). Group B and Group C share /api/flashcards; both faces live in the
 * flashcards service. A later `/api/v2/...` gets its own prefixes here, beside v1; until then v2
 * paths are the gateway's 404. Paths the gateway serves itself (status, API keys, docs, health)
 * are mounted before the proxies.
 */
export const ROUTES: Route[] = [
  {
    service: 'identity',
    prefixes: [
      '/api/v1/auth',
      '/api/auth',
      '/api/users',
      '/api/v1/admin',
      // where the mailed links lead, and the files that make them open the app
      '/verify-email',
      '/reset-password',
      '/.well-known/apple-app-site-association',
      '/.well-known/assetlinks.json',
    ],
  },
  {
    service: 'subscriptions',
    prefixes: ['/api/v1/subscriptions', '/api/v1/dialogues', '/api/v1/admin/subscriptions'],
  },
  {
    service: 'flashcards',
    prefixes: [
      '/api/flashcards',
      '/api/study',
      '/api/flashcard-sets',
      '/api/learning',
      '/api/achievements',
      '/api/export',
      '/api/import',
    ],
  },
  { service: 'ai', prefixes: ['/api/ai'] },
  { service: 'notifications', prefixes: ['/api/notifications', '/api/webhooks'] },
];

export function serviceUrls(config: GatewayConfig): Record<ServiceName, string> {
  return {
    identity: config.IDENTITY_HTTP_URL,
    flashcards: config.FLASHCARDS_HTTP_URL,
    subscriptions: config.SUBSCRIPTIONS_HTTP_URL,
    ai: config.AI_HTTP_URL,
    notifications: config.NOTIFICATIONS_HTTP_URL,
  };
}

/**
 * True when path is the prefix itself or below it (`/api/ai` matches `/api/ai/quota`, not `/api/aide`).
 * Without building `${prefix}/`: a request runs this some 50 times (routing, limits, metrics label).
 */
export const matchesPrefix = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47); // "/"

const BY_LENGTH = ROUTES.flatMap((r) => r.prefixes.map((prefix) => ({ prefix, service: r.service }))).sort(
  (a, b) => b.prefix.length - a.prefix.length,
);

/** The service owning a path (longest prefix), or undefined when no service does. */
export function serviceFor(path: string): ServiceName | undefined {
  return BY_LENGTH.find((r) => matchesPrefix(path, r.prefix))?.service;
}
