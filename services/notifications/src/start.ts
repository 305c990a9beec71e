import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { NotificationsConfig } from './config';
import { notificationRepository } from './data-access/notification.repository';
import { userCreatedSubscriber } from './entry-points/events/user-created.subscriber';

/** Wiring of the notifications service: event-driven, no gRPC API. Routes arrive with the notifications issue. */
export function defineNotificationsService(
  config: NotificationsConfig,
): ServiceDefinition<NotificationsConfig> {
  return {
    config,
    useRedis: true,
    consumers: (deps) => [
      userCreatedSubscriber({ notifications: notificationRepository(deps.mongo.connection) }),
    ],
  };
}

export const start = (config: NotificationsConfig) => startService(defineNotificationsService(config));
