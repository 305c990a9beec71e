import { Router } from 'express';
import type { HealthRegistry } from '@lingua/health';

export const APP_VERSION = process.env.APP_VERSION ?? '0.1.0';

/** Liveness (the process answers) and readiness (its dependencies answer) for probes and the gateway. */
export function healthRoutes(service: string, health: HealthRegistry): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok', service, version: APP_VERSION, timestamp: new Date().toISOString() });
  });
  router.get('/health/ready', async (_req, res) => {
    const report = await health.report();
    res
      .status(report.ready ? 200 : 503)
      .json({ service, version: APP_VERSION, timestamp: new Date().toISOString(), ...report });
  });
  return router;
}
