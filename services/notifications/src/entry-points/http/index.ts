import type { Express } from 'express';
import { authenticate, type Clock, createAssertionVerifier, createTokenBlacklist } from '@lingua/auth';
import type { ServiceDeps } from '@lingua/bootstrap';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import type { NotificationsConfig } from '../../config';
import type { NotificationStore } from '../../domain/in-app-notification';
import type { WebhookDeps } from '../../domain/manage-webhooks.use-case';
import { notificationsRoutes } from './notifications.routes';
import { webhooksRoutes } from './webhooks.routes';

/** Every route of the service; the caller is the gateway's assertion for notifications (and the Redis blacklist). */
export function registerHttp(
  app: Express,
  deps: ServiceDeps<NotificationsConfig>,
  features: { notifications: NotificationStore; webhooks: WebhookDeps; clock: Clock },
) {
  // expiry is checked on real time: the injected clock moves webhook schedules in tests, not tokens
  const auth = authenticate({
    assertions: createAssertionVerifier('notifications', deps.config.assertionKey),
    blacklist: createTokenBlacklist(deps.redis!.client),
  });
  const docs = createApiDocs('notifications');
  app.use(notificationsRoutes(auth, { notifications: features.notifications, clock: features.clock }, docs));
  app.use(webhooksRoutes(auth, features.webhooks, docs));
  serveApiDocs(app, docs);
}
