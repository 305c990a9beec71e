import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import type { Logger } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';
import type { ProfileLanguages, ProfileLanguagesSource } from '../domain/ports';

/** "es", "es-MX", "ES" → "es": the dictionaries are per language, not per region. */
const languageCode = (tag: string) => /^([a-z]{2})(?:[-_].*)?$/i.exec(tag.trim())?.[1]?.toLowerCase();

/**
 * The languages on a user's profile, from identity (IdentityService.GetUserLanguages), kept in this
 * replica's memory for `cacheMs`: a profile change shows within that time, and a burst of look-ups
 * costs one call. When identity is down or slow the request goes on without them (the defaults of a
 * request that names no language), remembered briefly so a slow identity does not slow every request.
 */
export function profileLanguagesClient(options: {
  address: string;
  cacheMs: number;
  now: () => number;
  signer: CallSigner;
  logger?: Logger;
  deadlineMs?: number;
}): ProfileLanguagesSource {
  const client = createGrpcClient(loadPackage().lingua.identity.v1.IdentityService, options.address, {
    signer: options.signer,
    defaultDeadlineMs: options.deadlineMs ?? 1_000,
    idempotentMethods: ['GetUserLanguages'],
    ...(options.logger && { logger: options.logger }),
  });
  const cache = new Map<string, { until: number; value: ProfileLanguages }>();
  const MAX_ENTRIES = 10_000;
  const FAILURE_CACHE_MS = Math.min(options.cacheMs, 5_000);
  const remember = (userId: string, value: ProfileLanguages, forMs: number) => {
    if (forMs <= 0) return;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(userId, { until: options.now() + forMs, value });
  };
  return {
    async forUser(userId) {
      const hit = cache.get(userId);
      if (hit && hit.until > options.now()) return hit.value;
      try {
        const reply = await client.call('GetUserLanguages', { user_id: userId });
        const native = languageCode(reply.native_language);
        const preferred = languageCode(reply.preferred_language);
        const value: ProfileLanguages = { ...(native && { native }), ...(preferred && { preferred }) };
        remember(userId, value, options.cacheMs);
        return value;
      } catch (err) {
        options.logger?.warn({ err, userId }, "profile languages unavailable; the request's defaults apply");
        remember(userId, {}, FAILURE_CACHE_MS);
        return {};
      }
    },
    close: () => client.close(),
  };
}
