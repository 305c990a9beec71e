import { createHash } from 'node:crypto';
import type { RedisClient } from '@lingua/redis';
import type { AnalysisCache, AnalysisKey } from '../domain/ports';
import { KEY_PREFIX } from './quota.store';

/** Bump when the shape or the rules of a cached analysis change, so old entries are not served. */
const CACHE_VERSION = 'v2';

function analysisCacheKey({ provider, language, sentence }: AnalysisKey): string {
  const digest = createHash('sha256').update(sentence).digest('hex');
  return `${KEY_PREFIX}analysis:${CACHE_VERSION}:${provider}:${language}:${digest}`;
}

interface Entry<T> {
  cachedAt: string;
  value: T;
}

/**
 * Sentence analyses in Redis. Entries expire in Redis after the TTL; the stored time is also checked
 * against the service clock, so the 24-hour rule holds (and is testable) whatever Redis' clock says.
 */
export function analysisCache(redis: RedisClient, ttlMs: number): AnalysisCache {
  return {
    async get<T>(key: AnalysisKey, now: Date): Promise<{ value: T; cachedAt: string } | undefined> {
      const raw = await redis.get(analysisCacheKey(key));
      if (!raw) return undefined;
      const entry = JSON.parse(raw) as Entry<T>;
      if (now.getTime() - new Date(entry.cachedAt).getTime() >= ttlMs) return undefined;
      return entry;
    },
    async set<T>(key: AnalysisKey, value: T, now: Date): Promise<void> {
      if (ttlMs <= 0) return;
      const entry: Entry<T> = { cachedAt: now.toISOString(), value };
      await redis.set(analysisCacheKey(key), JSON.stringify(entry), { PX: ttlMs });
    },
  };
}
