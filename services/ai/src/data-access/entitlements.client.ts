import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import type { Logger } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';
import type { Entitlements, EntitlementsSource } from '../domain/ports';

export type { Entitlements, EntitlementsSource };

/**
 * Premium status from the subscriptions service (EntitlementsService.GetEntitlements), cached in
 * memory for `cacheMs`. When the service is down or slow the user is treated as free (the safe side:
 * quotas apply) and that answer is cached only briefly, so a recovery is noticed quickly.
 */
export function entitlementsClient(options: {
  address: string;
  cacheMs: number;
  now: () => number;
  logger?: Logger;
  deadlineMs?: number;
  /** Proves to subscriptions that ai calls. */
  signer: CallSigner;
}): EntitlementsSource {
  const client = createGrpcClient(
    loadPackage().lingua.subscriptions.v1.EntitlementsService,
    options.address,
    {
      signer: options.signer,
      defaultDeadlineMs: options.deadlineMs ?? 1_000,
      idempotentMethods: ['GetEntitlements'],
      ...(options.logger && { logger: options.logger }),
    },
  );
  const cache = new Map<string, { value: Entitlements; until: number }>();
  const FAILURE_CACHE_MS = Math.min(options.cacheMs, 5_000);
  const MAX_ENTRIES = 10_000;

  return {
    async forUser(userId) {
      const now = options.now();
      const hit = cache.get(userId);
      if (hit && hit.until > now) return hit.value;
      let value: Entitlements;
      let ttl = options.cacheMs;
      try {
        const reply = await client.call('GetEntitlements', { user_id: userId });
        value = { isPremium: reply.is_premium, verified: true };
      } catch (err) {
        options.logger?.warn({ err, userId }, 'entitlements unavailable; treating user as free');
        value = { isPremium: false, verified: false };
        ttl = FAILURE_CACHE_MS;
      }
      if (cache.size >= MAX_ENTRIES) cache.clear();
      if (ttl > 0) cache.set(userId, { value, until: now + ttl });
      return value;
    },
    close: () => client.close(),
  };
}
