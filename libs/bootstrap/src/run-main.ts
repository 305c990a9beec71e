import { createLogger, type Logger } from '@lingua/logger';
import type { ServiceEnv } from './service-env';
import { type ServiceDefinition, startService } from './start-service';

/**
 * The body of every main.ts: start, log the outcome, and stop gracefully on SIGTERM/SIGINT (also
 * while still waiting for dependencies). A failed start (anything but an unreachable dependency,
 * which is retried) exits with code 1 so supervisors (compose, k8s, the local launcher) notice.
 */
export async function runMain<C extends ServiceEnv>(
  define: () => ServiceDefinition<C> | Promise<ServiceDefinition<C>>,
): Promise<void> {
  // a SIGTERM while the service still waits for its dependencies ends the wait
  const starting = new AbortController();
  let logger: Logger | undefined = undefined; // set once the definition is read
  let running: Awaited<ReturnType<typeof startService<C>>> | undefined;
  let stopping = false;
  const stop = (service: NonNullable<typeof running>) =>
    service
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        logger?.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // a signal while the definition still loads (a slow start on a busy machine) has nothing to stop
    if (!logger) process.exit(0);
    logger.info({ signal }, 'shutting down');
    if (running) void stop(running);
    else starting.abort(new Error(`${signal} while starting`));
  };
  // One listener each for the process's whole life. Removing one and adding another lost a signal
  // that came just before: libuv hands a signal to the handle registered when it arrived, and that
  // handle was closed by the time the loop read it, so the process went on starting and served
  // until SIGKILL.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const def = await define();
  logger = def.logger ?? createLogger(def.config.service, { level: def.config.LOG_LEVEL });
  try {
    running = await startService({ ...def, logger, signal: starting.signal });
  } catch (err) {
    if (starting.signal.aborted) process.exit(0);
    logger.fatal({ err }, `${def.config.service} failed to start`);
    // even with logging off (LOG_LEVEL=silent, as in tests), the reason for exit code 1 is said once
    if (!logger.isLevelEnabled('fatal'))
      process.stderr.write(
        `${def.config.service} failed to start: ${(err as Error)?.stack ?? String(err)}\n`,
      );
    process.exit(1);
  }
  if (stopping) void stop(running);
}
