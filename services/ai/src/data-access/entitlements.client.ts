import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import type { Logger } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';
import type { RedisClient } from '@lingua/redis';
import type { Entitlements, EntitlementsSource } from '../domain/ports';
import { KEY_PREFIX } from './quota.store';

export type { Entitlements, EntitlementsSource };

/** Redis key of a user's cached premium status (erased by the subscription events' consumer). */
export const entitlementKey = (userId: string) => `${KEY_PREFIX}entitlement:${userId}`;

/**
 * Premium status from the subscriptions service (EntitlementsService.GetEntitlements), cached in
 * Redis for `cacheMs`, shared by every replica, so that the consumer of `subscription.*` events
 * (forgetEntitlements) ends it for all of them the moment a purchase, refund or expiry is applied:
 * the time-based expiry is only the fallback. When the service is down or slow the user is treated
 * as free (the safe side: quotas apply) and that answer is kept in this replica's memory only
 * briefly, so a recovery is noticed quickly.
 */
export function entitlementsClient(options: {
  address: string;
  cacheMs: number;
  now: () => number;
  redis: RedisClient;
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
  const failures = new Map<string, number>();
  const FAILURE_CACHE_MS = Math.min(options.cacheMs, 5_000);
  const MAX_FAILURES = 10_000;

  return {
    async forUser(userId) {
      const now = options.now();
      const failedUntil = failures.get(userId);
      if (failedUntil !== undefined && failedUntil > now) return { isPremium: false, verified: false };
      const cached = options.cacheMs > 0 ? await options.redis.get(entitlementKey(userId)) : null;
      if (cached === '1' || cached === '0') return { isPremium: cached === '1', verified: true };
      try {
        const reply = await client.call('GetEntitlements', { user_id: userId });
        if (options.cacheMs > 0)
          await options.redis.set(entitlementKey(userId), reply.is_premium ? '1' : '0', {
            PX: options.cacheMs,
          });
        failures.delete(userId);
        return { isPremium: reply.is_premium, verified: true };
      } catch (err) {
        options.logger?.warn({ err, userId }, 'entitlements unavailable; treating user as free');
        if (failures.size >= MAX_FAILURES) failures.clear();
        if (FAILURE_CACHE_MS > 0) failures.set(userId, now + FAILURE_CACHE_MS);
        return { isPremium: false, verified: false };
      }
    },
    close: () => client.close(),
  };
}

/** Ends a user's cached premium status (all replicas): their subscriptions just changed. */
export const forgetEntitlements = (redis: RedisClient) => async (userId: string) => {
  await redis.del(entitlementKey(userId));
};
