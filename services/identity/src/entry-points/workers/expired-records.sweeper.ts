import { periodicTask } from '@lingua/bootstrap';
import type { IdentityDeps } from '../../domain/identity-deps';

/** Expired sign-ins are kept this long after expiry, for investigating a reported theft. */
export const EXPIRED_KEPT_MS = 7 * 24 * 3600_000;

/**
 * Deletes refresh-token families and one-time tokens (reset, verification) that expired: nothing can
 * use them any more, and the collections would otherwise grow with every sign-in and e-mail. Every
 * replica may run it; deleting what another replica deleted is a no-op.
 */
export function expiredRecordsSweeper(
  deps: Pick<IdentityDeps, 'families' | 'oneTimeTokens' | 'clock' | 'logger'>,
  intervalMs = 3600_000,
) {
  return periodicTask(
    'identity expired-records sweep',
    intervalMs,
    async () => {
      const now = deps.clock.now().getTime();
      const families = await deps.families.deleteExpired(new Date(now - EXPIRED_KEPT_MS));
      const tokens = await deps.oneTimeTokens.deleteExpired(new Date(now));
      if (families + tokens > 0) deps.logger.info({ families, tokens }, 'expired identity records deleted');
    },
    deps.logger,
  );
}
