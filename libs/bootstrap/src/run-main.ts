import { createLogger } from '@lingua/logger';
import type { ServiceEnv } from './service-env';
import { type ServiceDefinition, startService } from './start-service';

/**
 * The body of every main.ts: start, log the outcome, and stop gracefully on SIGTERM/SIGINT.
 * A failed start exits with code 1 so supervisors (compose, k8s, the local launcher) notice.
 */
export async function runMain<C extends ServiceEnv>(
  define: () => ServiceDefinition<C> | Promise<ServiceDefinition<C>>,
): Promise<void> {
  const def = await define();
  const logger = def.logger ?? createLogger(def.config.service, { level: def.config.LOG_LEVEL });
  let running: Awaited<ReturnType<typeof startService<C>>>;
  try {
    running = await startService({ ...def, logger });
  } catch (err) {
    logger.fatal({ err }, `${def.config.service} failed to start`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
