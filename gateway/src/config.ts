import { z } from 'zod';
import { accessTokenPartiesEnv, type AssertionAudience, DEV_JWT_SECRET, devAssertionKey } from '@lingua/auth';
import { env, loadConfig, redisEnv } from '@lingua/config';
import { trustProxyEnv } from '@lingua/http';
import { parseRedisTarget, RedisConfigError } from '@lingua/redis';

export { DEV_JWT_SECRET };

const ASSERTION_KEY_VARS = [
  ['identity', 'IDENTITY_ASSERTION_KEY'],
  ['flashcards', 'FLASHCARDS_ASSERTION_KEY'],
  ['subscriptions', 'SUBSCRIPTIONS_ASSERTION_KEY'],
  ['ai', 'AI_ASSERTION_KEY'],
  ['notifications', 'NOTIFICATIONS_ASSERTION_KEY'],
] as const satisfies readonly (readonly [AssertionAudience, string])[];

export const gatewayEnv = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: env.string('127.0.0.1'),
    GATEWAY_PORT: env.port(8080),
    /** Prometheus /metrics, on its own port: never reachable through GATEWAY_PORT (the public one). */
    GATEWAY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    ...redisEnv,
    IDENTITY_HTTP_URL: env.url('http://127.0.0.1:3001'),
    FLASHCARDS_HTTP_URL: env.url('http://127.0.0.1:3002'),
    SUBSCRIPTIONS_HTTP_URL: env.url('http://127.0.0.1:3003'),
    AI_HTTP_URL: env.url('http://127.0.0.1:3004'),
    NOTIFICATIONS_HTTP_URL: env.url('http://127.0.0.1:3005'),
    /** A service that has not answered by then gets a 504. */
    UPSTREAM_TIMEOUT_MS: env.int(15_000, 100, 120_000),
    /** Deadline of a request by route class (domain/deadlines.ts), sent on as X-Request-Timeout-Ms. */
    DEADLINE_READ_MS: env.int(3_000, 50, 120_000),
    DEADLINE_WRITE_MS: env.int(5_000, 50, 120_000),
    DEADLINE_AI_MS: env.int(10_000, 50, 120_000),
    DEADLINE_TRANSFER_MS: env.int(12_000, 50, 120_000),
    /** Adaptive concurrency limit at the edge: the excess is answered 503 at once (@lingua/http load-shedder). */
    LOAD_SHED: env.bool(true),
    GATEWAY_LOAD_SHED_TARGET_MS: env.int(50, 10, 60_000),
    GATEWAY_LOAD_SHED_MAX_IN_FLIGHT: env.int(1024, 1, 100_000),
    GATEWAY_LOAD_SHED_MAX_LOOP_DELAY_MS: env.int(100, 10, 60_000),
    LOG_LEVEL: env.logLevel(),
    /** After SIGTERM: how long the gateway still serves, not ready, before it stops accepting. */
    DRAIN_DELAY_MS: env.int(0, 0, 60_000),
    /**
     * Then how long in-flight requests get before their connections are dropped, as for the
     * services; idle keep-alive connections are closed after the clients' idle window (5 s) or this,
     * whichever is shorter (@lingua/http startHttpServer).
     */
    SHUTDOWN_GRACE_MS: env.int(10_000, 0, 120_000),
    /**
     * Who may tell the gateway the client's address (the ingress): a hop count or address/CIDR list
     * (express's `trust proxy`). The client address derived with it is what rate limits key on and
     * what the services receive as the only X-Forwarded-For entry.
     */
    TRUST_PROXY: trustProxyEnv(),
    APP_VERSION: env.string('0.1.0'),
    /** HS256 client-token secret, shared with identity (which signs) and no other service. */
    JWT_SECRET: env.secret().optional(),
    /**
     * One key per service for the internal assertions the gateway signs (docs/adr/0001): each
     * service holds only its own, so none can speak for another or for a client.
     */
    IDENTITY_ASSERTION_KEY: env.secret().optional(),
    FLASHCARDS_ASSERTION_KEY: env.secret().optional(),
    SUBSCRIPTIONS_ASSERTION_KEY: env.secret().optional(),
    AI_ASSERTION_KEY: env.secret().optional(),
    NOTIFICATIONS_ASSERTION_KEY: env.secret().optional(),
    // Rate limits per hour (spec: Limits), shared by every gateway replica through Redis.
    RATE_LIMIT_FREE_PER_HOUR: env.int(100, 1),
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: env.int(500, 1),
    RATE_LIMIT_API_KEY_PER_HOUR: env.int(1000, 1),
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: env.int(1000, 1),
    RATE_LIMIT_CATALOGUE_PREMIUM_PER_HOUR: env.int(10_000, 1),
    /** Sign-in attempts (password and social) per minute and client address (IPv6: per /64). */
    RATE_LIMIT_LOGIN_PER_MINUTE: env.int(5, 1),
    /** Accounts created per hour and client address (Firebase Authentication's limit). */
    RATE_LIMIT_SIGNUP_PER_HOUR: env.int(100, 1),
    /** Forgot-password, reset-password and verify-email calls per hour and client address. */
    RATE_LIMIT_RECOVERY_PER_HOUR: env.int(20, 1),
    /** Store server notifications (App Store, Google Play) per minute and sending address. */
    RATE_LIMIT_STORE_NOTIFICATIONS_PER_MINUTE: env.int(600, 1),
    /** Aggregate health requests (/health, /api/health, /api/health/detailed) per minute and address. */
    HEALTH_RATE_LIMIT_PER_MINUTE: env.int(600, 1),
    /** How long one aggregate health answer is shared by every caller (0: asked anew each time). */
    HEALTH_CACHE_MS: env.int(1_000, 0, 60_000),
    /** Most points a replica leases from a busy caller's budget at once (domain/rate-lease.ts); 1 = none. */
    RATE_LIMIT_LEASE_MAX: env.int(100, 1, 10_000),
    /** Redis key prefix of the counters (tests use their own to stay independent). */
    RATE_LIMIT_PREFIX: env.string('gateway:rl'),
    /**
     * Idempotency-Key (docs/adr/0024): how long a kept answer is replayed, the largest answer kept,
     * and the Redis key prefix of the records (tests use their own).
     */
    IDEMPOTENCY_TTL_SECONDS: env.int(86_400, 60, 7 * 86_400),
    IDEMPOTENCY_MAX_ANSWER_BYTES: env.int(1_048_576, 1_024, 16_777_216),
    IDEMPOTENCY_PREFIX: env.string('gateway:idem'),
    /** Redis key prefix of the API keys. */
    API_KEY_PREFIX: env.string('gateway:apikey'),
    MAINTENANCE_MODE: env.bool(false),
    /** Comma-separated origins allowed by CORS; empty allows none (mobile apps send no Origin). */
    CORS_ORIGINS: z.string().default(''),
    /** Largest JSON body the gateway accepts (parsed to check depth and clean markup). */
    JSON_BODY_LIMIT_BYTES: env.int(1_048_576, 1_024, 52_428_800),
    JSON_MAX_DEPTH: env.int(20, 2, 200),
    /** Uploads (multipart) per plan, spec: 10 MB free / 50 MB premium. */
    UPLOAD_LIMIT_FREE_BYTES: env.int(10 * 1024 * 1024, 1_024),
    UPLOAD_LIMIT_PREMIUM_BYTES: env.int(50 * 1024 * 1024, 1_024),
    /** Share of successful proxied requests written to the access log (errors are always logged). */
    ACCESS_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(1),
    /**
     * Proxied requests without a body to read take a plain node:http path (same steps, no express
     * stack). false sends everything through express (for comparisons; behaviour is the same).
     */
    GATEWAY_FAST_PATH: env.bool(true),
    /** How long the merged OpenAPI document is reused before the services are asked again. */
    OPENAPI_CACHE_MS: env.int(30_000, 0, 3_600_000),
  })
  .superRefine((c, ctx) => {
    try {
      parseRedisTarget(c);
    } catch (err) {
      if (!(err instanceof RedisConfigError)) throw err;
      ctx.addIssue({ code: 'custom', path: [err.variable], message: err.message });
    }
    if (c.NODE_ENV !== 'production') return;
    for (const name of ['JWT_SECRET', ...ASSERTION_KEY_VARS.map(([, v]) => v)] as const)
      if (c[name] === undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: 'required when NODE_ENV=production' });
  })
  .transform(({ GATEWAY_METRICS_PORT, ...c }) => ({
    ...c,
    // default 9400; a gateway on a free port (tests, benches) gets a free metrics port too
    metricsPort: GATEWAY_METRICS_PORT ?? (c.GATEWAY_PORT === 0 ? 0 : 9400),
    redis: parseRedisTarget(c),
    jwtSecret: c.JWT_SECRET ?? DEV_JWT_SECRET,
    assertionKeys: Object.fromEntries(
      ASSERTION_KEY_VARS.map(([service, name]) => [service, c[name] ?? devAssertionKey(service)]),
    ) as Record<AssertionAudience, string>,
    // the upstream timeout is the most the gateway waits, whatever a class allows
    deadlines: {
      readMs: Math.min(c.DEADLINE_READ_MS, c.UPSTREAM_TIMEOUT_MS),
      writeMs: Math.min(c.DEADLINE_WRITE_MS, c.UPSTREAM_TIMEOUT_MS),
      aiMs: Math.min(c.DEADLINE_AI_MS, c.UPSTREAM_TIMEOUT_MS),
      transferMs: Math.min(c.DEADLINE_TRANSFER_MS, c.UPSTREAM_TIMEOUT_MS),
    },
    corsOrigins: c.CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  }));
export type GatewayConfig = z.infer<typeof gatewayEnv> & z.infer<typeof accessTokenPartiesEnv>;

export const loadGatewayConfig = (
  source: Record<string, string | undefined> = process.env,
): GatewayConfig => ({
  ...loadConfig(gatewayEnv, source),
  // the iss and aud identity signs into client tokens (JWT_ISSUER, JWT_AUDIENCE), required here too
  ...loadConfig(accessTokenPartiesEnv, source),
});
