import { Router } from 'express';
import { HealthRegistry } from '@lingua/health';
import type { ApiDocs } from '@lingua/openapi';
import type { RedisHandle } from '@lingua/redis';
import { z } from 'zod';
import type { ServiceName } from './routes';

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
}): Router {
  const router = Router();
  if (deps.docs) documentHealth(deps.docs);
  const own = new HealthRegistry(deps.timeoutMs ?? 2_000).register({
    name: 'redis',
    check: () => deps.redis.ping(),
  });
  const redisReady = async () => (await own.report()).ready;
  const snapshot = async () => {
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
  router.get('/api/health/detailed', async (_req, res) => {
    const s = await snapshot();
    const mem = process.memoryUsage();
    const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    res.json({
      Status: Word(s.healthy),
      Environment: deps.environment,
      Database: Word(s.databaseUp),
      Cache: Word(s.redisUp),
      Memory: { RssMb: mb(mem.rss), HeapUsedMb: mb(mem.heapUsed), HeapTotalMb: mb(mem.heapTotal) },
      Services: Object.fromEntries(
        Object.entries(s.services).map(([n, r]) => [
          n,
          { Status: r.reachable ? Word(r.ready) : 'Unreachable', Checks: r.checks },
        ]),
      ),
    });
  });
  router.get('/health/live', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/health/ready', async (_req, res) => {
    const up = await redisReady();
    res.status(up ? 200 : 503).json({ ready: up, checks: { redis: { status: up ? 'up' : 'down' } } });
  });
  return router;
}

const status = z.string();
function documentHealth(docs: ApiDocs) {
  docs.route({
    method: 'get',
    path: '/health',
    summary: 'Overall health (200 healthy, 503 otherwise)',
    tags: ['health'],
    auth: 'none',
    response: z.object({
      status,
      version: z.string(),
      timestamp: z.string().meta({ format: 'date-time' }),
      checks: z.object({ database: status, redis: status, external_apis: status }),
    }),
    errors: { 503: 'Unhealthy' },
  });
  docs.route({
    method: 'get',
    path: '/api/health',
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
    summary: 'Health of every part',
    tags: ['health'],
    auth: 'none',
    response: z.object({
      Status: status,
      Environment: z.string(),
      Database: status,
      Cache: status,
      Memory: z.record(z.string(), z.number()),
      Services: z.record(z.string(), z.unknown()),
    }),
  });
}
