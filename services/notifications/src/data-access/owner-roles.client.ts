import { isAppError } from '@lingua/errors';
import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import type { OwnerRoles } from '../domain/webhook';

/**
 * Owners' current roles from identity (IdentityService.GetUser), remembered for `cacheMs`: a
 * demotion reaches the webhooks within that time. Unlike the entitlements (where failing to the
 * free side is safe), an unanswered question throws: the event or attempt is retried, never
 * delivered on a guess.
 */
export function ownerRolesClient(options: {
  address: string;
  cacheMs: number;
  now: () => number;
  signer: CallSigner;
}): OwnerRoles & { close(): void } {
  const client = createGrpcClient(loadPackage().lingua.identity.v1.IdentityService, options.address, {
    signer: options.signer,
    defaultDeadlineMs: 2_000,
    idempotentMethods: ['GetUser'],
  });
  const cache = new Map<string, { admin: boolean; until: number }>();
  const MAX_ENTRIES = 10_000;
  return {
    async isAdmin(userId) {
      const now = options.now();
      const hit = cache.get(userId);
      if (hit && hit.until > now) return hit.admin;
      let admin: boolean;
      try {
        admin = (await client.call('GetUser', { user_id: userId })).user?.role === 'admin';
      } catch (err) {
        // a deleted owner is no admin; anything else is an outage
        if (!isAppError(err) || err.code !== 'NOT_FOUND') throw err;
        admin = false;
      }
      if (cache.size >= MAX_ENTRIES) cache.clear();
      if (options.cacheMs > 0) cache.set(userId, { admin, until: now + options.cacheMs });
      return admin;
    },
    close: () => client.close(),
  };
}
