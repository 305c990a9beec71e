import { type Clock, systemClock } from '@lingua/auth';
import { type ServiceDefinition, type ServiceDeps, startService } from '@lingua/bootstrap';
import { createCallSigner } from '@lingua/grpc';
import { deletedUsers } from '@lingua/mongo';
import type { NotificationsConfig } from './config';
import { httpWebhookSender, resolveHost } from './data-access/http-webhook-sender';
import { measuredSender, registerWebhookGauges } from './data-access/webhook-metrics';
import { cachedEndpointStore } from './data-access/endpoint-cache';
import { notificationRepository } from './data-access/notification.repository';
import { ownerRolesClient } from './data-access/owner-roles.client';
import { smtpMailer } from './data-access/smtp-mailer';
import { pushSenderFromConfig } from './data-access/push';
import type { PushSender } from './domain/push-sender';
import { webhookDeliveryRepository } from './data-access/webhook-delivery.repository';
import { webhookEndpointRepository } from './data-access/webhook-endpoint.repository';
import type { QueuedDelivery, SendFirst } from './domain/fan-out-event.use-case';
import type { Mailer } from './domain/send-account-email.use-case';
import type { OwnerRoles } from './domain/webhook';
import type { UserReach } from './domain/user-reach';
import { domainEventsSubscriber } from './entry-points/events/domain-events.subscriber';
import { registerHttp } from './entry-points/http';
import {
  type RunningWebhookWorker,
  startWebhookWorker,
} from './entry-points/workers/webhook-delivery.worker';
import { notificationsIndexes } from './data-access/indexes';
import { reminderSendLogRepository } from './data-access/reminder-send-log.repository';
import { userReachClient } from './data-access/user-reach.client';
import { DEFAULT_BANDIT_OPTIONS } from './domain/reminders/choose-template';
import { reminderRewardsSubscriber, remindersSubscriber } from './entry-points/events/reminders.subscriber';

export interface NotificationsOptions {
  /** Tests move time instead of waiting hours for retries. */
  clock?: Clock;
  /** Tests make jitter deterministic. */
  random?: () => number;
  /** Replaces SMTP (tests that do not look at e-mail). */
  mailer?: Mailer;
  /** Replaces the push providers (APNs, FCM, development sink). */
  push?: PushSender;
  /** false: this replica serves the API and consumes events but sends no webhooks. */
  runWebhookWorker?: boolean;
  /** Replaces identity's answer about webhook owners (tests of this service alone). */
  owners?: OwnerRoles;
  /** Replaces identity's answer on how to reach a user (tests of this service alone). */
  users?: UserReach;
}

/** Repositories and adapters, built once per running service. */
function buildFeatures(
  config: NotificationsConfig,
  deps: ServiceDeps<NotificationsConfig>,
  options: NotificationsOptions,
) {
  const connection = deps.mongo.connection;
  return {
    notifications: notificationRepository(connection),
    endpoints: cachedEndpointStore(
      webhookEndpointRepository(connection),
      deps.redis!.client,
      `notifications:${config.mongoDb}:webhook-endpoints:version`,
    ),
    deliveries: webhookDeliveryRepository(connection),
    tombstones: deletedUsers(connection),
    owners:
      options.owners ??
      ownerRolesClient({
        address: config.IDENTITY_ADDR,
        cacheMs: config.WEBHOOK_OWNER_ROLE_CACHE_MS,
        now: Date.now,
        signer: createCallSigner('notifications', config.grpc.grpcSigningKey),
      }),
    sender: measuredSender(
      httpWebhookSender({
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS,
      }),
    ),
    mailer:
      options.mailer ??
      smtpMailer({
        host: config.SMTP_HOST,
        port: config.SMTP_PORT,
        secure: config.SMTP_SECURE,
        user: config.SMTP_USER,
        password: config.SMTP_PASSWORD,
        from: config.MAIL_FROM,
      }),
    // APNs and FCM, or the development push sink for a provider without credentials
    push: options.push ?? pushSenderFromConfig(config),
    // identity: a user's devices, settings, e-mail and language (push and reminders)
    users:
      options.users ??
      userReachClient({
        address: config.IDENTITY_ADDR,
        signer: createCallSigner('notifications', config.grpc.grpcSigningKey),
      }),
    sends: reminderSendLogRepository(connection),
  };
}

/**
 * Wiring of the notifications service: the HTTP API (in-app notifications, webhook management), one
 * durable consumer for the domain events it reacts to, and the webhook delivery worker.
 */
export function defineNotificationsService(
  config: NotificationsConfig,
  options: NotificationsOptions = {},
): ServiceDefinition<NotificationsConfig> {
  const clock = options.clock ?? systemClock;
  let features: ReturnType<typeof buildFeatures> | undefined;
  const featuresOf = (deps: ServiceDeps<NotificationsConfig>) =>
    (features ??= buildFeatures(config, deps, options));
  let worker: RunningWebhookWorker | undefined;
  const kick = () => worker?.kick();
  const dispatch = (queued: QueuedDelivery[]) => worker?.dispatch(queued);
  const sendFirst: SendFirst = (delivery, endpoint) =>
    worker ? worker.sendFirst(delivery, endpoint) : Promise.resolve('queue');
  return {
    config,
    indexes: (c) => notificationsIndexes(c),
    useRedis: true,
    http: (app, deps) => {
      const f = featuresOf(deps);
      registerHttp(app, deps, {
        notifications: f.notifications,
        clock,
        webhooks: {
          endpoints: f.endpoints,
          deliveries: f.deliveries,
          clock,
          allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS,
          resolve: resolveHost,
          maxEndpointsPerAccount: config.WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT,
          kick,
        },
      });
    },
    consumers: (deps) => {
      const f = featuresOf(deps);
      return [
        domainEventsSubscriber({
          ...f,
          clock,
          emailLinkKey: config.emailLinkKey,
          dispatchWebhooks: dispatch,
          sendFirst,
          concurrency: config.NOTIFICATIONS_CONSUMER_CONCURRENCY,
        }),
        remindersSubscriber({
          ...f,
          clock,
          bandit: { ...DEFAULT_BANDIT_OPTIONS, enabled: config.REMINDER_BANDIT === 'on' },
          random: options.random ?? Math.random,
          concurrency: config.NOTIFICATIONS_REMINDER_CONCURRENCY,
          // the longest a live replica can take over one push: every attempt, and every wait for a
          // provider's Retry-After, with a margin
          claimLeaseMs:
            config.PUSH_TIMEOUT_MS * config.PUSH_MAX_ATTEMPTS +
            config.PUSH_MAX_RETRY_WAIT_MS * (config.PUSH_MAX_ATTEMPTS - 1) +
            30_000,
        }),
        reminderRewardsSubscriber(f),
      ];
    },
    workers: (deps) => {
      const f = featuresOf(deps);
      const unregisterGauges = registerWebhookGauges(deps.mongo.connection);
      const closeAdapters = {
        async stop() {
          unregisterGauges();
          f.sender.close();
          (f.owners as Partial<{ close(): void }>).close?.();
          (f.mailer as Partial<{ close(): void }>).close?.();
          (f.push as Partial<{ close(): void }>).close?.();
          (f.users as Partial<{ close(): void }>).close?.();
        },
      };
      if (options.runWebhookWorker === false) return [closeAdapters];
      worker = startWebhookWorker(
        {
          endpoints: f.endpoints,
          deliveries: f.deliveries,
          notifications: f.notifications,
          owners: f.owners,
          sender: f.sender,
          clock,
          logger: deps.logger,
          disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
          ...(options.random && { random: options.random }),
        },
        {
          pollMs: config.WEBHOOK_POLL_MS,
          // a claim shorter than a request could run out mid-attempt and let another worker send it too
          leaseMs: Math.max(config.WEBHOOK_LEASE_MS, config.WEBHOOK_TIMEOUT_MS + 5_000),
          concurrency: config.WEBHOOK_CONCURRENCY,
          // a slow endpoint may hold a quarter of the consumer's slots; its other events queue
          firstSendsPerEndpoint: Math.max(8, Math.floor(config.NOTIFICATIONS_CONSUMER_CONCURRENCY / 4)),
        },
      );
      // stopped first: in-flight attempts finish, then the adapters close
      return [closeAdapters, worker];
    },
  };
}

export const start = (config: NotificationsConfig, options?: NotificationsOptions) =>
  startService(defineNotificationsService(config, options));
