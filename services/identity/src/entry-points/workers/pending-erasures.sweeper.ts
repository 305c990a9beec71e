import { periodicTask } from '@lingua/bootstrap';
import type { Logger } from '@lingua/logger';
import { type ErasureDeps, eraseAccount } from '../../domain/erase-account.use-case';

/**
 * Resumes the clean-up of deleted accounts whose run failed or was cut short (a crash, Apple or the
 * database unreachable): every `intervalMs`, each record not tried for that long is claimed (one
 * replica runs it) and run again, until all its steps have succeeded (docs/adr/0022).
 */
export function pendingErasuresSweeper(deps: ErasureDeps & { logger: Logger }, intervalMs: number) {
  return periodicTask(
    'identity pending-erasures sweep',
    intervalMs,
    async () => {
      const now = deps.clock.now();
      const before = new Date(now.getTime() - intervalMs);
      for (const erasure of await deps.erasures.due(before, 100)) {
        if (!(await deps.erasures.claim(erasure.userId, before, now))) continue;
        try {
          if (await eraseAccount(erasure, deps))
            deps.logger.info({ userId: erasure.userId, attempts: erasure.attempts + 1 }, 'account erased');
        } catch (err) {
          deps.logger.warn({ err, userId: erasure.userId }, 'account clean-up failed; tried again later');
          await deps.erasures.failed(erasure.userId, String(err));
        }
      }
    },
    deps.logger,
  );
}
