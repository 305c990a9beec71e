import { AppError } from '@lingua/errors';
import type { Caller } from './owner';
import type { StorePurchase } from './subscription';

/**
 * Which accounts may be granted premium by an App Store Sandbox purchase (TestFlight, Xcode
 * testers: no money changes hands). `any`: every account (development, tests). Otherwise only the
 * listed user ids (the team's testers) in production; a guest (device only) never.
 */
export type SandboxPurchasePolicy = 'any' | { allowedUserIds: ReadonlySet<string> };

/** Refuses a Sandbox purchase the policy does not allow for this caller (400 RECEIPT_INVALID, reason sandbox_not_allowed). */
export function assertStoreEnvironmentAccepted(
  purchase: StorePurchase,
  caller: Caller,
  policy: SandboxPurchasePolicy,
): void {
  if (purchase.environment !== 'Sandbox' || policy === 'any') return;
  if (caller.userId && policy.allowedUserIds.has(caller.userId)) return;
  throw new AppError('RECEIPT_INVALID', 'Sandbox purchases are not accepted for this account', {
    details: {
      reason: 'sandbox_not_allowed',
      environment: ['Sandbox transactions grant premium in production only to allow-listed accounts'],
    },
  });
}
