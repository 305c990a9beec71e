import type { GatewayConfig } from './config';

export type ServiceName = 'identity' | 'flashcards' | 'subscriptions' | 'ai' | 'notifications';

export interface Route {
  /** Path prefixes (whole segments) sent to the service, unchanged. */
  prefixes: string[];
  service: ServiceName;
}

/**
 * The route table: every path of the spec, by prefix, to the service that owns it.
 * Group B and Group C share /api/flashcards; both faces live in the flashcards service.
 */
export const ROUTES: Route[] = [
  { service: 'identity', prefixes: ['/api/v1/auth', '/api/auth', '/api/users', '/api/v1/admin'] },
  { service: 'subscriptions', prefixes: ['/api/v1/subscriptions', '/api/v1/dialogues'] },
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

/** True when path is the prefix itself or below it (`/api/ai` matches `/api/ai/quota`, not `/api/aide`). */
export const matchesPrefix = (path: string, prefix: string) =>
  path === prefix || path.startsWith(`${prefix}/`);
