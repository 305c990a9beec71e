import type { Logger } from '@lingua/logger';
import type { BackgroundWorker } from './start-service';

export interface PeriodicTask extends BackgroundWorker {
  /** Runs the task now (tests; an operator's nudge); waits for a run already under way instead of overlapping. */
  runNow(): Promise<void>;
}

/**
 * A task repeated every `intervalMs` (sweeps, clean-ups): never two runs at once, a failure logged
 * and retried at the next tick, and stop() waits for the run under way.
 */
export function periodicTask(
  name: string,
  intervalMs: number,
  run: () => Promise<unknown>,
  logger: Logger,
): PeriodicTask {
  let current: Promise<void> | undefined;
  const once = () =>
    (current ??= run()
      .then(() => undefined)
      .catch((err: unknown) =>
        logger.warn({ err, task: name }, 'periodic task failed; retried at the next tick'),
      )
      .finally(() => {
        current = undefined;
      }));
  const timer = setInterval(() => void once(), intervalMs);
  timer.unref();
  return {
    runNow: once,
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
