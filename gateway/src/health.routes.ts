import { isIP } from 'node:net';
import { type Request, Router } from 'express';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { AccessTokens } from '@lingua/auth';
import { AppError } from '@lingua/errors';
import { HealthRegistry } from '@lingua/health';
import type { ApiDocs } from '@lingua/openapi';
import type { RedisHandle } from '@lingua/redis';
import { z } from 'zod';
import type { ApiKeyStore } from './domain/api-keys';
import { hashApiKey, isUsable } from './domain/api-keys';
import type { ServiceName } from './routes';

/** Loopback and private addresses (RFC 1918, RFC 4193): callers inside the cluster network. */
export function isInternalAddress(ip: string | undefined): boolean {
  if (!ip) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  return ip === '::1' || /^f[cd][0-9a-f]{2}:/i.test(ip);
}

/** Who may see the per-service breakdown: the internal network, admins, API keys with an ops scope. */
export interface HealthAccess {
  tokens: AccessTokens;
  /** Revoked tokens by id (the gateway's blacklist mirror). */
  isRevoked(jti: string): Promise<boolean>;
  apiKeys: ApiKeyStore;
  redis: RedisHandle;
  /** Requests per minute and client address to the aggregate health paths (internal callers exempt). */
  perMinute: number;
  prefix: string;
}

async function mayseeBreakdown(req: Request, access: HealthAccess): Promise<boolean> {
  if (isInternalAddress(req.ip)) return true;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) {
    const token = auth.slice(7);
    try {
      const claims = access.tokens.verify(token);
      if (claims.role === 'admin' && !(await access.isRevoked(claims.jti))) return true;
    } catch {
      /* not a valid token: an anonymous caller */
    }
  }
  const key = req.headers['x-api-key'];
  if (typeof key === 'string') {
    const record = await access.apiKeys.findByHash(hashApiKey(key));
    if (
      record &&
      isUsable(record, new Date()) &&
      record.client_id === req.headers['x-client-id'] &&
      (record.scopes.includes('*') || record.scopes.includes('ops:read'))
    )
      return true;
  }
  return false;
}

interface ServiceReadiness {
  reachable: boolean;
  ready: boolean;
  checks: Record<string, { status: 'up' | 'down'; error?: string }>;
}

async function readinessOf(url: string, timeoutMs: number): Promise<ServiceReadiness> {
  try {
    const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { ready?: boolean; checks?: ServiceReadiness['checks'] };
    return { reachable: true, ready: res.ok && body.ready === true, checks: body.checks ?? {} };
  } catch {
    return { reachable: false, ready: false, checks: {} };
  }
}

/**
 * The spec's three health endpoints, aggregated from every service's /health/ready and the
 * gateway's own Redis. Database is healthy only if every service reaches its database.
 */
export function healthRoutes(deps: {
  services: Record<ServiceName, string>;
  redis: RedisHandle;
  version: string;
  environment: string;
  timeoutMs?: number;
  docs?: ApiDocs;
  access: HealthAccess;
  /** How long one aggregate answer is reused: a flood never multiplies to the services. */
  cacheMs?: number;
  /** True once a stop has begun: the gateway's own readiness turns 503 at once. */
  stopping?: () => boolean;
}): Router {
  const router = Router();
  if (deps.docs) documentHealth(deps.docs);
  const { access } = deps;
  const limiter = new RateLimiterRedis({
    storeClient: access.redis.client,
    useRedisPackage: true,
    keyPrefix: `${access.prefix}:health`,
    points: access.perMinute,
    duration: 60,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: access.perMinute, duration: 60 }),
  });
  // health is a reading of this moment: no cache may answer a probe or a status page with an old one
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // the aggregate paths fan out to every service: their own budget per client address
  const AGGREGATES = new Set(['/health', '/api/health', '/api/health/detailed']);
  router.use(async (req, _res, next) => {
    if (!AGGREGATES.has(req.path) || isInternalAddress(req.ip)) return next();
    try {
      await limiter.consume(req.ip ?? 'unknown');
      next();
    } catch (rejection) {
      if (rejection instanceof Error) return next(rejection);
      const retry = Math.max(1, Math.ceil((rejection as { msBeforeNext: number }).msBeforeNext / 1000));
      next(
        new AppError('RATE_LIMITED', 'Too many health requests', {
          headers: { 'Retry-After': String(retry) },
        }),
      );
    }
  });
  // reported, not required (ADR 0034): answered within the optional checks' short timeout
  const own = new HealthRegistry(deps.timeoutMs ?? 2_000).register({
    name: 'redis',
    optional: true,
    check: () => deps.redis.ping(),
  });
  const redisReady = async () => (await own.report()).checks.redis?.status === 'up';
  const cacheMs = deps.cacheMs ?? 1_000;
  let cached: { at: number; value: Promise<Snapshot> } | undefined;
  /** One aggregate per cacheMs, shared by every caller in between (and by concurrent ones). */
  const snapshot = (): Promise<Snapshot> => {
    const now = Date.now();
    if (!cached || now - cached.at >= cacheMs) cached = { at: now, value: fresh() };
    return cached.value;
  };
  type Snapshot = Awaited<ReturnType<typeof fresh>>;
  const fresh = async () => {
    const names = Object.keys(deps.services) as ServiceName[];
    const [redisUp, ...reports] = await Promise.all([
      redisReady(),
      ...names.map((n) => readinessOf(deps.services[n], deps.timeoutMs ?? 2_000)),
    ]);
    const services = Object.fromEntries(names.map((n, i) => [n, reports[i]!])) as Record<
      ServiceName,
      ServiceReadiness
    >;
    const all = Object.values(services);
    const databaseUp = all.every((s) => s.reachable && s.checks.database?.status === 'up');
    const servicesUp = all.every((s) => s.ready);
    return {
      redisUp: redisUp as boolean,
      databaseUp,
      servicesUp,
      healthy: redisUp && databaseUp && servicesUp,
      services,
    };
  };
  const word = (up: boolean) => (up ? 'healthy' : 'unhealthy');
  const Word = (up: boolean) => (up ? 'Healthy' : 'Unhealthy');

  router.get('/health', async (_req, res) => {
    const s = await snapshot();
    res.status(s.healthy ? 200 : 503).json({
      status: word(s.healthy),
      version: deps.version,
      timestamp: new Date().toISOString(),
      checks: { database: word(s.databaseUp), redis: word(s.redisUp), external_apis: word(s.servicesUp) },
    });
  });
  router.get('/api/health', async (_req, res) => {
    const s = await snapshot();
    res.json({
      Status: Word(s.healthy),
      Timestamp: new Date().toISOString(),
      Version: deps.version,
      Service: 'lingua-api',
    });
  });
  router.get('/api/health/detailed', async (req, res) => {
    const [s, privileged] = await Promise.all([snapshot(), mayseeBreakdown(req, access)]);
    const mem = process.memoryUsage();
    const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    res.json({
      Status: Word(s.healthy),
      Environment: deps.environment,
      Database: Word(s.databaseUp),
      Cache: Word(s.redisUp),
      Memory: { RssMb: mb(mem.rss), HeapUsedMb: mb(mem.heapUsed), HeapTotalMb: mb(mem.heapTotal) },
      // the breakdown names dependencies and their errors: not for anonymous callers
      ...(privileged && {
        Services: Object.fromEntries(
          Object.entries(s.services).map(([n, r]) => [
            n,
            { Status: r.reachable ? Word(r.ready) : 'Unreachable', Checks: r.checks },
          ]),
        ),
      }),
    });
  });
  router.get('/health/live', (_req, res) => void res.json({ status: 'ok' } satisfies GatewayLiveness));
  router.get('/health/ready', async (_req, res) => {
    if (deps.stopping?.()) return void res.status(503).json({ ready: false, status: 'shutting down' });
    // Redis is reported, not required: every gateway shares it, and admission already answers 503
    // for what needs it (docs/adr/0034)
    const up = await redisReady();
    const body: GatewayReadiness = { ready: true, checks: { redis: { status: up ? 'up' : 'down' } } };
    res.json(body);
  });
  return router;
}

const GatewayLiveness = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });
type GatewayLiveness = z.infer<typeof GatewayLiveness>;
const GatewayReadiness = z
  .object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.object({ status: z.enum(['up', 'down']) })),
  })
  .meta({ id: 'Readiness' });
type GatewayReadiness = z.infer<typeof GatewayReadiness>;

const status = z.string();
const HealthBody = z
  .object({
    status,
    version: z.string(),
    timestamp: z.string().meta({ format: 'date-time' }),
    checks: z.object({ database: status, redis: status, external_apis: status }),
  })
  .meta({ id: 'Health' });

function documentHealth(docs: ApiDocs) {
  docs.route({
    method: 'get',
    path: '/health/live',
    operationId: 'health.live',
    summary: 'Liveness of the gateway process',
    description: 'Liveness: 200 while the process runs; a failure means restart it. Public.',
    tags: ['health'],
    auth: 'none',
    response: GatewayLiveness,
  });
  docs.route({
    method: 'get',
    path: '/health/ready',
    operationId: 'health.ready',
    summary: 'Readiness of the gateway',
    description:
      'Readiness: 200 while the gateway serves (Redis is reported in `checks`, not required), 503 (same body, ready false) once it is shutting down. Public.',
    tags: ['health'],
    auth: 'none',
    response: GatewayReadiness,
    errors: { 503: 'Not ready' },
    errorBodies: { 503: GatewayReadiness },
  });
  docs.route({
    method: 'get',
    path: '/health',
    operationId: 'health.check',
    summary: 'Overall health (200 healthy, 503 otherwise)',
    tags: ['health'],
    auth: 'none',
    response: HealthBody,
    errors: { 503: 'Unhealthy' },
    errorBodies: { 503: HealthBody },
  });
  docs.route({
    method: 'get',
    path: '/api/health',
    operationId: 'health.summary',
    summary: 'Health summary',
    tags: ['health'],
    auth: 'none',
    response: z.object({
      Status: status,
      Timestamp: z.string().meta({ format: 'date-time' }),
      Version: z.string(),
      Service: z.string(),
    }),
  });
  docs.route({
    method: 'get',
    path: '/api/health/detailed',
    operationId: 'health.detailed',
    summary:
      'Health of every part; the per-service breakdown only for the internal network, admins and API keys with scope ops:read',
    tags: ['health'],
    auth: 'none',
    response: z.object({
      Status: status,
      Environment: z.string(),
      Database: status,
      Cache: status,
      Memory: z.record(z.string(), z.number()),
      Services: z.record(z.string(), z.unknown()).optional(),
    }),
    errors: { 429: 'Too many health requests from this address' },
  });
}
