import { createHash } from 'node:crypto';
import type { RedisClient } from '@lingua/redis';
import { KEY_PREFIX } from './quota.store';

/** Bump when the shape or the rules of a cached analysis change, so old entries are not served. */
const CACHE_VERSION = 'v1';

/** Same sentence modulo spacing and Unicode form → same key. Case is kept: it can be the mistake. */
export function normaliseForCache(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ');
}

export function analysisCacheKey(provider: string, language: string, text: string): string {
  const digest = createHash('sha256').update(normaliseForCache(text)).digest('hex');
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
export function analysisCache(redis: RedisClient, ttlMs: number) {
  return {
    async get<T>(key: string, now: Date): Promise<{ value: T; cachedAt: string } | undefined> {
      const raw = await redis.get(key);
      if (!raw) return undefined;
      const entry = JSON.parse(raw) as Entry<T>;
      if (now.getTime() - new Date(entry.cachedAt).getTime() >= ttlMs) return undefined;
      return entry;
    },
    async set<T>(key: string, value: T, now: Date): Promise<void> {
      if (ttlMs <= 0) return;
      const entry: Entry<T> = { cachedAt: now.toISOString(), value };
      await redis.set(key, JSON.stringify(entry), { PX: ttlMs });
    },
  };
}
export type AnalysisCache = ReturnType<typeof analysisCache>;
