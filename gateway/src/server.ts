import { setTimeout as delay } from 'node:timers/promises';
import express, { type RequestHandler } from 'express';
import { createAccessTokens, createAssertionSigner, createBlacklistMirror } from '@lingua/auth';
import {
  accessLog,
  accessLogger,
  adaptiveShedder,
  envelopeStyleFor,
  finishApp,
  requestIdMiddleware,
  startHttpServer,
  tracingMiddleware,
} from '@lingua/http';
import { createLogger, type Logger } from '@lingua/logger';
import { admittedOnCredit, instrumentHttp, registerShedder, startMetricsServer } from '@lingua/metrics';
import { createApiDocs } from '@lingua/openapi';
import { connectRedis } from '@lingua/redis';
import type { GatewayConfig } from './config';
import { createApiKeyStore, migrateLegacyApiKeys } from './data-access/api-key-store';
import { redisIdempotencyStore } from './data-access/idempotency-store';
import { createFragmentSource } from './data-access/openapi-fragments';
import { docsRoutes } from './entry-points/http/docs.routes';
import { gatewayRoutes } from './entry-points/http/gateway.routes';
import { healthRoutes } from './health.routes';
import { fastPathListener } from './fast-path';
import {
  apiConventions,
  apiSecurityHeaders,
  bodyCheck,
  bodyLimits,
  compress,
  corsFor,
  securityHeaders,
  uploadLimitFor,
} from './middleware/conventions';
import { createAdmission, edgeAuth } from './middleware/edge-auth';
import { idempotency } from './middleware/idempotency';
import { createForwarder } from './middleware/forwarder';
import { proxyRoutes } from './middleware/proxy';
import { createRateLimiters } from './middleware/rate-limit';
import type { Caller } from './domain/caller';
import { DEFAULT_LEASE_POLICY } from './domain/rate-lease';
import { gatewayRouteLabel } from './request-metrics';
import { matchesPrefix, serviceUrls } from './routes';

/** Runs a router only for its own paths, so proxied requests do not walk its route list. */
const only =
  (prefixes: string[], handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    prefixes.some((p) => matchesPrefix(req.path, p)) ? handler(req, res, next) : next();

export interface RunningGateway {
  port: number;
  url: string;
  /** Where Prometheus scrapes the gateway (GATEWAY_METRICS_PORT), apart from the public port. */
  metricsPort: number;
  metricsUrl: string;
  /** Rate-limit points this replica holds in leases or is giving back (0: all back in Redis). */
  outstandingRatePoints(): number;
  stop(): Promise<void>;
}

/**
 * Starts the gateway. Proxied requests take the fast path (fast-path.ts: the same steps on plain
 * node:http); the gateway's own routes, keyed writes and CORS requests run through express. Order matters: ids and
 * trace span, access log, security headers, CORS and compression; health and docs (open); then API
 * conventions, edge admission (authentication, gates, rate limits) and body checks; the gateway's
 * own routes; the proxies; 404 and errors in the path's envelope.
 */
export async function startGateway(
  config: GatewayConfig,
  options: { logger?: Logger } = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const redis = await connectRedis(config.redis, { name: 'gateway' });
  const services = serviceUrls(config);
  const tokens = createAccessTokens(config.jwtSecret, undefined, config.accessTokenParties);
  // revoked tokens mirrored in memory: no Redis round trip per request (falls back to Redis when unsure)
  const blacklist = await createBlacklistMirror(redis.client, {
    onError: (err) =>
      logger.warn({ err }, 'token blacklist mirror: Redis unavailable; checking Redis directly'),
  });
  const movedKeys = await migrateLegacyApiKeys(redis.client, config.API_KEY_PREFIX);
  if (movedKeys > 0) logger.info({ movedKeys }, 'API keys moved under their Redis Cluster hash tag');
  const apiKeys = createApiKeyStore(redis.client, config.API_KEY_PREFIX);
  const limiters = createRateLimiters(
    redis.client,
    {
      sharedFree: config.RATE_LIMIT_FREE_PER_HOUR,
      sharedSubscriber: config.RATE_LIMIT_SUBSCRIBER_PER_HOUR,
      apiKey: config.RATE_LIMIT_API_KEY_PER_HOUR,
      catalogueFree: config.RATE_LIMIT_CATALOGUE_FREE_PER_HOUR,
      cataloguePremium: config.RATE_LIMIT_CATALOGUE_PREMIUM_PER_HOUR,
      loginPerMinute: config.RATE_LIMIT_LOGIN_PER_MINUTE,
      signupPerHour: config.RATE_LIMIT_SIGNUP_PER_HOUR,
      recoveryPerHour: config.RATE_LIMIT_RECOVERY_PER_HOUR,
      storePerMinute: config.RATE_LIMIT_STORE_NOTIFICATIONS_PER_MINUTE,
    },
    config.RATE_LIMIT_PREFIX,
    { ...DEFAULT_LEASE_POLICY, max: config.RATE_LIMIT_LEASE_MAX },
    (err) => logger.warn({ err }, 'rate limit: Redis did not take or return leased points'),
    () => admittedOnCredit.inc(),
  );
  let stopping = false;
  const docs = createApiDocs('gateway');

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(tracingMiddleware);
  app.use(requestIdMiddleware);
  app.use(accessLog(logger, { sampleRate: config.ACCESS_LOG_SAMPLE_RATE }));
  app.use((req, res, next) => {
    res.locals.envelopeStyle = envelopeStyleFor(req.path);
    next();
  });
  app.use(securityHeaders);
  app.use(corsFor(config.corsOrigins));
  app.use(compress);
  app.use(
    only(
      ['/health', '/api/health'],
      healthRoutes({
        services,
        redis,
        version: config.APP_VERSION,
        environment: config.NODE_ENV,
        docs,
        cacheMs: config.HEALTH_CACHE_MS,
        stopping: () => stopping,
        access: {
          tokens,
          isRevoked: (jti) => blacklist.isRevoked(jti),
          apiKeys,
          redis,
          perMinute: config.HEALTH_RATE_LIMIT_PER_MINUTE,
          prefix: config.RATE_LIMIT_PREFIX,
        },
      }),
    ),
  );
  app.use(
    only(
      ['/openapi.json', '/docs'],
      docsRoutes({
        docs,
        fragments: createFragmentSource(services),
        version: config.APP_VERSION,
        cacheMs: config.OPENAPI_CACHE_MS,
        logger,
      }),
    ),
  );
  app.use(apiConventions);
  const assertions = createAssertionSigner(config.assertionKeys);
  const admission = {
    tokens,
    assertions,
    blacklist,
    apiKeys,
    limiters,
    maintenance: config.MAINTENANCE_MODE,
  };
  app.use(edgeAuth(admission));
  const checkBody = bodyCheck({
    jsonBytes: config.JSON_BODY_LIMIT_BYTES,
    maxDepth: config.JSON_MAX_DEPTH,
    uploadFreeBytes: config.UPLOAD_LIMIT_FREE_BYTES,
    uploadPremiumBytes: config.UPLOAD_LIMIT_PREMIUM_BYTES,
  });
  app.use(bodyLimits(checkBody));
  // after admission (the caller is known) and the JSON body; before anything that answers (docs/adr/0024)
  app.use(
    idempotency({
      store: redisIdempotencyStore(redis.client, config.IDEMPOTENCY_PREFIX),
      ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
      maxAnswerBytes: config.IDEMPOTENCY_MAX_ANSWER_BYTES,
      // the longest a request can run at the gateway, and a margin
      leaseMs: config.UPSTREAM_TIMEOUT_MS + 5_000,
      maxBodyBytes: (res) =>
        uploadLimitFor(res.locals.caller as Caller | undefined, {
          uploadFreeBytes: config.UPLOAD_LIMIT_FREE_BYTES,
          uploadPremiumBytes: config.UPLOAD_LIMIT_PREMIUM_BYTES,
        }),
      logger,
    }),
  );
  app.use(
    only(
      ['/api/v1/status', '/api/v1/admin/api-keys'],
      gatewayRoutes({ apiKeys, maintenance: config.MAINTENANCE_MODE, docs }),
    ),
  );
  const upstream = { timeoutMs: config.UPSTREAM_TIMEOUT_MS, deadlines: config.deadlines, logger };
  // one forwarder for both paths (docs/adr/0035)
  const forwarder = createForwarder(services, upstream);
  app.use(proxyRoutes(forwarder));
  finishApp(app, logger);

  const listener = config.GATEWAY_FAST_PATH
    ? fastPathListener({
        app,
        logger,
        admit: createAdmission(admission),
        checkBody,
        forward: forwarder,
        track: accessLogger(logger, { sampleRate: config.ACCESS_LOG_SAMPLE_RATE }),
        securityHeaders: apiSecurityHeaders,
        compress,
        corsOrigins: config.corsOrigins,
        trustProxy: config.TRUST_PROXY,
      })
    : app;
  const shedder =
    config.LOAD_SHED &&
    adaptiveShedder({
      maxInFlight: config.GATEWAY_LOAD_SHED_MAX_IN_FLIGHT,
      targetLatencyMs: config.GATEWAY_LOAD_SHED_TARGET_MS,
      maxEventLoopDelayMs: config.GATEWAY_LOAD_SHED_MAX_LOOP_DELAY_MS,
    });
  const unregisterShedder = shedder ? registerShedder('gateway', () => shedder.stats) : () => undefined;
  const http = await startHttpServer(listener, {
    port: config.GATEWAY_PORT,
    host: config.HOST,
    ...(shedder && { shedder }),
    instrument: (inner) => instrumentHttp('gateway', inner, gatewayRouteLabel),
    // above the 60 s idle timeout of common ingresses and cloud load balancers
    keepAliveMs: 65_000,
  });
  const metrics = await startMetricsServer({ port: config.metricsPort, host: config.HOST }).catch(
    async (err: unknown) => {
      await http.close();
      throw err;
    },
  );
  logger.info({ url: http.url, docs: `${http.url}/docs/`, metrics: metrics.url }, 'gateway started');
  return {
    port: http.port,
    url: http.url,
    metricsPort: metrics.port,
    metricsUrl: metrics.url,
    outstandingRatePoints: () => limiters.outstanding(),
    /**
     * Graceful: not ready and `Connection: close` at once, still serving for DRAIN_DELAY_MS (the
     * time the ingress takes to notice), then in-flight requests finish (SHUTDOWN_GRACE_MS at most)
     * and connections close.
     */
    async stop() {
      stopping = true;
      http.drain();
      if (config.DRAIN_DELAY_MS > 0) await delay(config.DRAIN_DELAY_MS);
      // every step runs even when one before it failed: a stuck Redis must not keep sockets open
      const steps: (() => unknown)[] = [
        () => http.close(config.SHUTDOWN_GRACE_MS),
        // after the API port: the last scrape sees the drain
        () => metrics.close(),
        () => unregisterShedder(),
        () => forwarder.close(),
        () => limiters.release(),
        () => blacklist.stop(),
        () => redis.close(),
      ];
      for (const step of steps)
        await Promise.resolve()
          .then(step)
          .catch((err: unknown) => logger.warn({ err }, 'gateway shutdown step failed'));
    },
  };
}
