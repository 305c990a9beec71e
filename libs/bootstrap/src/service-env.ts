import { z } from 'zod';
import { type AssertionAudience, devAssertionKey } from '@lingua/auth';
import { env, parseNatsServers, redisEnv } from '@lingua/config';
import { DEFAULT_BACKOFF_MS } from '@lingua/events';
import { type TrustProxy, trustProxyEnv } from '@lingua/http';
import { parseRedisTarget, RedisConfigError, type RedisTarget } from '@lingua/redis';

export { DEV_JWT_SECRET } from '@lingua/auth';

/** What every service reads from its environment, after parsing. */
export interface ServiceEnv {
  service: string;
  NODE_ENV: 'development' | 'production' | 'test';
  HOST: string;
  httpPort: number;
  grpcPort: number;
  /**
   * gRPC server reflection (GRPC_REFLECTION): `grpcurl list` without proto files. Default on, except
   * with NODE_ENV=production where it is off unless set to true.
   */
  grpcReflection: boolean;
  /** Port of the Prometheus /metrics endpoint (`<SERVICE>_METRICS_PORT`), never the API port. */
  metricsPort: number;
  /** Any MongoDB connection string, as given (the database is `mongoDb`, passed as dbName). */
  MONGO_URL: string;
  mongoDb: string;
  NATS_URL: string;
  /** NATS_URL as the list of seed servers given to the client. */
  natsServers: string[];
  REDIS_URL: string;
  /** The Redis to connect to: REDIS_URL alone, or a Sentinel set or a Cluster (parseRedisTarget). */
  redis: RedisTarget;
  EVENTS_STREAM: string;
  EVENTS_SUBJECT_PREFIX: string;
  /** This service's key for the gateway's internal assertions (`<SERVICE>_ASSERTION_KEY`). */
  assertionKey: string;
  /** Limits of the event streams (every service applies them: give all services the same). */
  eventStreams: { maxAgeMs: number; maxBytes: number; replicas: number; duplicateWindowMs: number };
  /** How long a consumer remembers a handled event id (TTL of processed_events). */
  processedEventsTtlSeconds: number;
  /** The delays before a failed event's retries (EVENTS_RETRY_BACKOFF_MS); past the list, the last doubles up to 60 s. */
  eventRetryBackoffMs: number[];
  LOG_LEVEL: string;
  /** Who may tell this service the client's address: the gateway (TRUST_PROXY). */
  trustProxy: TrustProxy;
  SHUTDOWN_GRACE_MS: number;
  /** After SIGTERM: how long the service still serves, not ready, before it stops accepting. */
  DRAIN_DELAY_MS: number;
  /** Budget of a request that came without the gateway's X-Request-Timeout-Ms. */
  REQUEST_DEADLINE_MS: number;
  /** Adaptive concurrency limit (load shedding); undefined when LOAD_SHED=false. */
  loadShed: { targetLatencyMs: number; maxInFlight: number; maxEventLoopDelayMs: number } | undefined;
}

/**
 * The variables every service reads, named after the service (`IDENTITY_HTTP_PORT`, ...) as the
 * conventions ask. A bad value is reported under the variable's own name.
 */
export function serviceEnv(service: string, ports: { http: number; grpc?: number; metrics?: number }) {
  const SVC = service.toUpperCase();
  return z
    .object({
      NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
      HOST: env.string('127.0.0.1'),
      [`${SVC}_HTTP_PORT`]: env.port(ports.http),
      [`${SVC}_GRPC_PORT`]: env.port(ports.grpc ?? 0),
      [`${SVC}_METRICS_PORT`]: z.coerce.number().int().min(0).max(65535).optional(),
      GRPC_REFLECTION: z
        .enum(['true', 'false', '1', '0', 'yes', 'no'])
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes')),
      MONGO_URL: env.mongoUrl(`mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`),
      [`${SVC}_MONGO_DB`]: env.string(`lingua_${service}`),
      NATS_URL: env.natsServers('nats://127.0.0.1:4222'),
      ...redisEnv,
      EVENTS_STREAM: env.string('EVENTS'),
      EVENTS_SUBJECT_PREFIX: z
        .string()
        .regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits, underscore')
        .default('events'),
      EVENTS_MAX_AGE_HOURS: env.int(7 * 24, 1, 10 * 365 * 24),
      EVENTS_MAX_BYTES: z.coerce
        .number()
        .int()
        .refine((n) => n === -1 || n >= 1024 * 1024, '-1 (no limit) or at least 1048576 (1 MiB)')
        .default(-1),
      EVENTS_REPLICAS: env.int(1, 1, 5),
      EVENTS_DUPLICATE_WINDOW_MS: env.int(120_000, 1_000, 24 * 3600_000),
      PROCESSED_EVENTS_TTL_HOURS: env.int(14 * 24, 1, 10 * 365 * 24),
      // comma-separated milliseconds, each 10 ms to 1 hour
      EVENTS_RETRY_BACKOFF_MS: z
        .string()
        .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds, such as 1000,5000,30000')
        .transform((v) => v.split(',').map(Number))
        .refine((list) => list.every((ms) => ms >= 10 && ms <= 3_600_000), 'each delay from 10 to 3600000 ms')
        .default([...DEFAULT_BACKOFF_MS]),
      [`${SVC}_ASSERTION_KEY`]: z.string().min(32, 'must be at least 32 characters').optional(),
      LOG_LEVEL: env.logLevel(),
      TRUST_PROXY: trustProxyEnv(),
      SHUTDOWN_GRACE_MS: env.int(10_000, 0, 120_000),
      DRAIN_DELAY_MS: env.int(0, 0, 60_000),
      REQUEST_DEADLINE_MS: env.int(10_000, 100, 120_000),
      LOAD_SHED: env.bool(true),
      LOAD_SHED_TARGET_MS: env.int(500, 10, 60_000),
      LOAD_SHED_MAX_IN_FLIGHT: env.int(512, 1, 100_000),
      LOAD_SHED_MAX_LOOP_DELAY_MS: env.int(250, 10, 60_000),
    })
    .transform((parsed, ctx): ServiceEnv => {
      const c = parsed as Record<string, unknown>; // computed keys erase the static shape
      if (c.NODE_ENV === 'production' && c[`${SVC}_ASSERTION_KEY`] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [`${SVC}_ASSERTION_KEY`],
          message: 'required when NODE_ENV=production',
        });
      let redis: RedisTarget = { mode: 'single', url: c.REDIS_URL as string, replicas: 0 };
      try {
        redis = parseRedisTarget(c as unknown as Parameters<typeof parseRedisTarget>[0]);
      } catch (err) {
        if (!(err instanceof RedisConfigError)) throw err;
        ctx.addIssue({ code: 'custom', path: [err.variable], message: err.message });
      }
      const maxAgeMs = (c.EVENTS_MAX_AGE_HOURS as number) * 3600_000;
      const duplicateWindowMs = c.EVENTS_DUPLICATE_WINDOW_MS as number;
      if (duplicateWindowMs > maxAgeMs)
        ctx.addIssue({
          code: 'custom',
          path: ['EVENTS_DUPLICATE_WINDOW_MS'],
          message: 'must not exceed EVENTS_MAX_AGE_HOURS (JetStream refuses it)',
        });
      // An event can come back while the stream still holds it (redelivery after a lost ack, a
      // consumer down for days) and, as a re-published copy, after the duplicate window: the record
      // that it was handled must outlive both.
      if ((c.PROCESSED_EVENTS_TTL_HOURS as number) <= (c.EVENTS_MAX_AGE_HOURS as number))
        ctx.addIssue({
          code: 'custom',
          path: ['PROCESSED_EVENTS_TTL_HOURS'],
          message: 'must be longer than EVENTS_MAX_AGE_HOURS (events still in the stream can be redelivered)',
        });
      return {
        service,
        NODE_ENV: c.NODE_ENV as ServiceEnv['NODE_ENV'],
        HOST: c.HOST as string,
        httpPort: c[`${SVC}_HTTP_PORT`] as number,
        grpcPort: c[`${SVC}_GRPC_PORT`] as number,
        grpcReflection: (c.GRPC_REFLECTION as boolean | undefined) ?? c.NODE_ENV !== 'production',
        // 3001 -> 9401 ...: beside the gateway's 9400; a service on a free port (tests) gets a free one too
        metricsPort:
          (c[`${SVC}_METRICS_PORT`] as number | undefined) ??
          (c[`${SVC}_HTTP_PORT`] === 0 ? 0 : (ports.metrics ?? ports.http + 6400)),
        MONGO_URL: c.MONGO_URL as string,
        mongoDb: c[`${SVC}_MONGO_DB`] as string,
        NATS_URL: c.NATS_URL as string,
        natsServers: parseNatsServers(c.NATS_URL as string),
        REDIS_URL: c.REDIS_URL as string,
        redis,
        EVENTS_STREAM: c.EVENTS_STREAM as string,
        EVENTS_SUBJECT_PREFIX: c.EVENTS_SUBJECT_PREFIX as string,
        assertionKey:
          (c[`${SVC}_ASSERTION_KEY`] as string | undefined) ?? devAssertionKey(service as AssertionAudience),
        eventStreams: {
          maxAgeMs,
          maxBytes: c.EVENTS_MAX_BYTES as number,
          replicas: c.EVENTS_REPLICAS as number,
          duplicateWindowMs,
        },
        processedEventsTtlSeconds: (c.PROCESSED_EVENTS_TTL_HOURS as number) * 3600,
        eventRetryBackoffMs: c.EVENTS_RETRY_BACKOFF_MS as number[],
        LOG_LEVEL: c.LOG_LEVEL as string,
        trustProxy: c.TRUST_PROXY as TrustProxy,
        SHUTDOWN_GRACE_MS: c.SHUTDOWN_GRACE_MS as number,
        DRAIN_DELAY_MS: c.DRAIN_DELAY_MS as number,
        REQUEST_DEADLINE_MS: c.REQUEST_DEADLINE_MS as number,
        loadShed: c.LOAD_SHED
          ? {
              targetLatencyMs: c.LOAD_SHED_TARGET_MS as number,
              maxInFlight: c.LOAD_SHED_MAX_IN_FLIGHT as number,
              maxEventLoopDelayMs: c.LOAD_SHED_MAX_LOOP_DELAY_MS as number,
            }
          : undefined,
      };
    });
}

/**
 * Used only when NODE_ENV is not production: 32 fixed bytes, so `npm start` and the tests run with
 * no setup. Anyone can read it here, which is why production refuses to start without its own key.
 */
export const DEV_EMAIL_LINK_KEY = Buffer.from('lingua-dev-email-link-key-32byte').toString('base64');

/**
 * `EMAIL_LINK_KEY`: the AES-256-GCM key sealing the account e-mail (address and link) that
 * identity puts on its events for notifications (`sealAccountMail`, `@lingua/contracts`). Only
 * those two services read it; required in production, like JWT_SECRET.
 */
export const emailLinkKeyEnv = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    EMAIL_LINK_KEY: z.string().optional(),
  })
  .transform((c, ctx) => {
    if (c.EMAIL_LINK_KEY === undefined) {
      if (c.NODE_ENV === 'production')
        ctx.addIssue({
          code: 'custom',
          path: ['EMAIL_LINK_KEY'],
          message: 'required when NODE_ENV=production',
        });
      return { emailLinkKey: Buffer.from(DEV_EMAIL_LINK_KEY, 'base64') };
    }
    const key = Buffer.from(c.EMAIL_LINK_KEY, 'base64');
    if (key.length !== 32 || key.toString('base64') !== c.EMAIL_LINK_KEY.trim())
      ctx.addIssue({
        code: 'custom',
        path: ['EMAIL_LINK_KEY'],
        message: 'must be 32 bytes in base64 (openssl rand -base64 32)',
      });
    return { emailLinkKey: key };
  });
