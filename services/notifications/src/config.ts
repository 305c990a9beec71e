import { z } from 'zod';
import { emailLinkKeyEnv, grpcSigningKeyEnv, serviceEnv } from '@lingua/bootstrap';
import { env, isLoopbackHost, loadConfig, productionGuard } from '@lingua/config';

/** notifications: every variable it reads (see .env.example); defaults run locally with no setup. */
export const notificationsEnv = serviceEnv('notifications', { http: 3005 });

/** Variables of this service's own features: webhooks, e-mail and push. */
export const notificationsFeatureEnv = z.object({
  /** Lets webhook URLs point at loopback/private addresses (local development and tests only). */
  WEBHOOK_ALLOW_PRIVATE_URLS: env.bool(false),
  WEBHOOK_TIMEOUT_MS: env.int(15_000, 100, 60_000),
  /** How often the delivery worker looks for due attempts (new deliveries also wake it at once). */
  WEBHOOK_POLL_MS: env.int(1_000, 10, 60_000),
  /** How long a claimed attempt stays with its worker; must exceed the request timeout. */
  WEBHOOK_LEASE_MS: env.int(60_000, 1_000, 3_600_000),
  /** Concurrent deliveries per worker. */
  WEBHOOK_CONCURRENCY: env.int(16, 1, 256),
  /**
   * Events the consumer handles at the same time per replica. Many: each waits for its grouped
   * inserts before its ack, so a slow database must delay acks, not the next events' webhooks.
   */
  NOTIFICATIONS_CONSUMER_CONCURRENCY: env.int(1024, 1, 4096),
  /** An endpoint failing for this long without a single success is disabled (Svix: 5 days). */
  WEBHOOK_DISABLE_AFTER_MS: env.int(5 * 24 * 3_600_000, 60_000),
  WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: env.int(10, 1, 1_000),
  /** Identity's gRPC address: a scope-all endpoint's owner must still be an admin when events go out. */
  IDENTITY_ADDR: env.addr('127.0.0.1:15051'),
  /** How long an owner's role is remembered: a demoted admin's scope-all endpoints stop within it. */
  WEBHOOK_OWNER_ROLE_CACHE_MS: env.int(30_000, 0, 600_000),
  /** In-app notifications are deleted this long after they were created (TTL index), read or not. */
  NOTIFICATIONS_RETENTION_DAYS: env.int(180, 1, 3_650),
  /**
   * Webhook deliveries and their attempt logs are deleted this long after their last change (TTL
   * index). At least 3 days: a delivery being retried is changed at least daily (the longest wait is
   * an honoured Retry-After of 24 h), so none is removed while it is still retried.
   */
  WEBHOOK_DELIVERY_RETENTION_DAYS: env.int(30, 3, 3_650),
  SMTP_HOST: env.string('127.0.0.1'),
  SMTP_PORT: env.port(1025),
  SMTP_SECURE: env.bool(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  MAIL_FROM: env.string('Lingua <no-reply@lingua.local>'),
  /** APNs: https://api.push.apple.com, or https://api.sandbox.push.apple.com for development builds. */
  APNS_URL: env.url('https://api.push.apple.com'),
  /** The .p8 signing key (token-based authentication) and its key id, team id and the app's bundle id. */
  APNS_KEY_FILE: z.string().optional(),
  APNS_KEY_ID: z.string().optional(),
  APNS_TEAM_ID: z.string().optional(),
  APNS_TOPIC: z.string().optional(),
  FCM_URL: env.url('https://fcm.googleapis.com'),
  /** The OAuth2 token endpoint; unset: the service-account file's token_uri. */
  FCM_TOKEN_URL: z.url().optional(),
  /** The Firebase service-account key (JSON: project_id, client_email, private_key). */
  FCM_SERVICE_ACCOUNT_FILE: z.string().optional(),
  /** Development: pushes for a provider without credentials go to this sink (deploy/local/push-sink.js). */
  PUSH_SINK_URL: env.url('http://127.0.0.1:1026/push'),
  PUSH_TIMEOUT_MS: env.int(10_000, 100, 60_000),
  /** Requests in flight per provider per replica (APNs multiplexes them on one HTTP/2 connection). */
  PUSH_CONCURRENCY: env.int(64, 1, 1_000),
  /** Attempts per push, the first included (429, 5xx and network failures are retried). */
  PUSH_MAX_ATTEMPTS: env.int(4, 1, 10),
  /** A provider asking to wait longer than this (Retry-After) gets the push back as `retry`. */
  PUSH_MAX_RETRY_WAIT_MS: env.int(60_000, 0, 3_600_000),
  /** Study reminders said at the same time per replica (each waits on identity and the providers). */
  NOTIFICATIONS_REMINDER_CONCURRENCY: env.int(128, 1, 4096),
  /** `off`: reminder templates are chosen uniformly, not by the bandit (ADR 0029). */
  REMINDER_BANDIT: z.enum(['on', 'off']).default('on'),
});

/** Development defaults that must be set for production: the mail server and sender. */
export const notificationsProductionGuard = productionGuard({
  SMTP_HOST: { kind: 'host' },
  MAIL_FROM: { kind: 'placeholder', placeholder: 'Lingua <no-reply@lingua.local>' },
});

/** Private webhook targets are for local runs and tests: production refuses them (SSRF). */
export const notificationsProductionSafety = z
  .object({ NODE_ENV: env.nodeEnv(), WEBHOOK_ALLOW_PRIVATE_URLS: env.bool(false) })
  .refine((c) => !(c.NODE_ENV === 'production' && c.WEBHOOK_ALLOW_PRIVATE_URLS), {
    path: ['WEBHOOK_ALLOW_PRIVATE_URLS'],
    message: 'must not be true when NODE_ENV=production (webhooks could reach internal services)',
  });

const APNS_KEYS = ['APNS_KEY_FILE', 'APNS_KEY_ID', 'APNS_TEAM_ID', 'APNS_TOPIC'] as const;

/**
 * Push credentials: the four APNs settings come together or not at all (in every environment);
 * production needs both providers' credentials and real endpoints (without them pushes would go to
 * the development sink, i.e. nowhere).
 */
export const notificationsPushCredentials = z
  .object({
    NODE_ENV: env.nodeEnv(),
    ...Object.fromEntries(APNS_KEYS.map((k) => [k, z.string().optional()])),
    FCM_SERVICE_ACCOUNT_FILE: z.string().optional(),
    APNS_URL: z.string().optional(),
    FCM_URL: z.string().optional(),
    FCM_TOKEN_URL: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    const values = c as Record<string, string | undefined>;
    const set = APNS_KEYS.filter((k) => values[k]?.trim());
    const production = c.NODE_ENV === 'production';
    for (const k of APNS_KEYS)
      if (!values[k]?.trim() && (set.length > 0 || production))
        ctx.addIssue({
          code: 'custom',
          path: [k],
          message:
            set.length > 0
              ? `required with ${set.join(', ')} (APNs needs the key file, key id, team id and topic)`
              : 'required when NODE_ENV=production (push to iOS devices)',
        });
    if (production && !c.FCM_SERVICE_ACCOUNT_FILE?.trim())
      ctx.addIssue({
        code: 'custom',
        path: ['FCM_SERVICE_ACCOUNT_FILE'],
        message: 'required when NODE_ENV=production (push to Android devices)',
      });
    if (production)
      for (const k of ['APNS_URL', 'FCM_URL', 'FCM_TOKEN_URL'] as const) {
        const v = values[k];
        if (v && URL.canParse(v) && isLoopbackHost(new URL(v).hostname))
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: 'must not point at a loopback address when NODE_ENV=production',
          });
      }
  });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) => {
  const config = {
    ...loadConfig(notificationsEnv, source),
    ...loadConfig(notificationsFeatureEnv, source),
    // opens the address and link identity sealed on the account e-mail events
    ...loadConfig(emailLinkKeyEnv, source),
    // proves to identity that notifications asks for an owner's role
    grpc: loadConfig(grpcSigningKeyEnv('notifications'), source),
  };
  loadConfig(notificationsProductionGuard, source); // checks only: exits naming the variable
  loadConfig(notificationsProductionSafety, source);
  loadConfig(notificationsPushCredentials, source);
  return config;
};
export type NotificationsConfig = ReturnType<typeof loadServiceConfig>;
