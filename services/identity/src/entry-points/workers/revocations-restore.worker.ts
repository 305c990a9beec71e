import { periodicTask } from '@lingua/bootstrap';
import type { Logger } from '@lingua/logger';

/** The revocations kept in the database (data-access/durable-blacklist.ts). */
interface DurableRevocations {
  restoreLost(): Promise<number>;
}

/**
 * Writes back to Redis the revocations it lost (docs/adr/0022): the database holds every revocation
 * in force; Redis, which every checker reads, can drop the last writes in a failover. Every replica
 * may run it: writing a revocation twice changes nothing.
 */
export function revocationsRestoreWorker(
  deps: { blacklist: DurableRevocations; logger: Logger },
  intervalMs: number,
) {
  return periodicTask(
    'identity revocations restore',
    intervalMs,
    async () => {
      const restored = await deps.blacklist.restoreLost();
      if (restored > 0) deps.logger.warn({ restored }, 'revocations Redis had lost were written back');
    },
    deps.logger,
  );
}
