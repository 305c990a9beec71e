import type { AiDeps } from './ai-deps';
import { UNLIMITED } from './ai-deps';
import { nextUtcMidnight, utcDay } from './quota-window';

/**
 * The caller's AI quota: generations today (the spec's used/limit/resetAt/isPremium), plus the
 * interactive look-up window. Premium limits are -1 (unlimited).
 */
export async function getQuota(userId: string, deps: AiDeps) {
  const now = deps.clock.now();
  const { isPremium } = await deps.entitlements.forUser(userId);
  const windowMs = deps.limits.lookupWindowMs;
  const [used, lookups] = await Promise.all([
    deps.quotas.usedDaily('generate', userId, utcDay(now)),
    deps.quotas.peekWindow('lookup', userId, { nowMs: now.getTime(), windowMs }),
  ]);
  return {
    used,
    limit: isPremium ? UNLIMITED : deps.limits.generationsPerDay,
    resetAt: nextUtcMidnight(now).toISOString(),
    isPremium,
    lookups: {
      used: lookups.used,
      limit: isPremium ? UNLIMITED : deps.limits.lookupsPerWindow,
      windowMinutes: Math.round(windowMs / 60_000),
      // when the oldest look-up leaves the window (a slot frees up); null when none is in it (a
      // moving "now" would make every read a new answer and defeat the ETag)
      resetAt: lookups.oldestMs === undefined ? null : new Date(lookups.oldestMs + windowMs).toISOString(),
    },
  };
}
