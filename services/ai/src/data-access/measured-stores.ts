import { aiCacheLookups, aiQuotaRejections } from '@lingua/metrics';
import type { AnalysisCache, QuotaStore } from '../domain/ports';

/** The analysis cache, counting hits and misses (lingua_ai_cache_lookups_total). */
export function measuredCache(inner: AnalysisCache): AnalysisCache {
  return {
    ...inner,
    async get(key, now) {
      const found = await inner.get(key, now);
      aiCacheLookups.inc({ result: found ? 'hit' : 'miss' });
      return found as never;
    },
  };
}

/** The quota store, counting refusals by feature (lingua_ai_quota_rejections_total). */
export function measuredQuotas(inner: QuotaStore): QuotaStore {
  return {
    ...inner,
    async reserveDaily(feature, userId, day, limit) {
      const result = await inner.reserveDaily(feature, userId, day, limit);
      if (!result.allowed) aiQuotaRejections.inc({ feature });
      return result;
    },
    async takeWindow(feature, userId, opts) {
      const result = await inner.takeWindow(feature, userId, opts);
      if (!result.allowed) aiQuotaRejections.inc({ feature });
      return result;
    },
  };
}
