import { userRevocation } from '@lingua/auth';
import { makeEvent } from '@lingua/contracts';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';

/** A deleted account whose clean-up is not finished yet (the deletion record; gone once it is). */
export interface PendingErasure {
  userId: string;
  deletedAt: Date;
  /** The avatar's file name, read before the soft delete wiped the profile. */
  avatar?: string | undefined;
  /** The user's own words on why, kept with the account record. */
  reason?: string | undefined;
  attempts: number;
}

/** Pending deletions, resumed until every step is done (a step that fails is tried again later). */
export interface AccountErasureStore {
  /** Records the deletion before it happens (idempotent: a second call keeps the first record). */
  open(erasure: {
    userId: string;
    deletedAt: Date;
    avatar?: string | undefined;
    reason?: string | undefined;
  }): Promise<void>;
  /** Records not tried since `before` (oldest first): a run under way elsewhere is left alone. */
  due(before: Date, limit: number): Promise<PendingErasure[]>;
  /** Claims the record for a run at `now` unless another run claimed it since `before`. */
  claim(userId: string, before: Date, now: Date): Promise<boolean>;
  failed(userId: string, error: string): Promise<void>;
  /** Every step done: the record goes (the soft-deleted user document stays as the tombstone). */
  close(userId: string): Promise<void>;
}

export type ErasureDeps = Pick<
  IdentityDeps,
  | 'users'
  | 'families'
  | 'oneTimeTokens'
  | 'socialIdentities'
  | 'avatars'
  | 'devices'
  | 'apple'
  | 'blacklist'
  | 'clock'
  | 'kickOutbox'
> & { erasures: AccountErasureStore };

/** Every token issued before the deletion is refused until the last of them has expired. */
export const revokeEveryToken = (userId: string, deletedAt: Date, deps: Pick<ErasureDeps, 'blacklist'>) =>
  deps.blacklist.revoke(
    userRevocation(userId),
    Math.floor(deletedAt.getTime() / 1000) + POLICY.accessTokenTtlSeconds + 60,
  );

/**
 * The soft delete that stages user.deleted (every service erases on it). Run by the request, and by
 * the sweeper when the request failed after recording the deletion: the record is written only after
 * the user confirmed, and the user's tokens may already be refused, so the deletion is carried
 * through rather than left half done (an account its owner can no longer use).
 */
export async function softDeleteAccount(erasure: Omit<PendingErasure, 'attempts'>, deps: ErasureDeps) {
  const event = makeEvent('user.deleted', { userId: erasure.userId }, { now: erasure.deletedAt });
  // the reason is the user's own words: kept with the account record, not sent to every subscriber
  await deps.users.softDelete(erasure.userId, erasure.deletedAt, event, erasure.reason);
  deps.kickOutbox();
}

/**
 * The clean-up after an account's soft delete (done first here if the request did not get that
 * far): every token revoked, sign-ins, e-mailed links,
 * provider links (the Apple grant revoked with Apple first: App Store guideline 5.1.1(v)), push
 * devices and the avatar erased. Each step is idempotent, and a failure leaves the record in place for the sweeper,
 * which runs this again until every step has succeeded. Returns whether the record was closed.
 */
export async function eraseAccount(erasure: PendingErasure, deps: ErasureDeps): Promise<boolean> {
  const { userId } = erasure;
  if (await deps.users.findById(userId)) await softDeleteAccount(erasure, deps);
  const nowSeconds = deps.clock.now().getTime() / 1000;
  if (erasure.deletedAt.getTime() / 1000 + POLICY.accessTokenTtlSeconds > nowSeconds)
    await revokeEveryToken(userId, erasure.deletedAt, deps);
  await deps.families.deleteAllOfUser(userId);
  await deps.oneTimeTokens.deleteAllOfUser(userId);
  if (deps.apple)
    for (const { provider, token } of await deps.socialIdentities.providerRefreshTokensOf(userId))
      if (provider === 'apple') await deps.apple.revoke(token);
  await deps.socialIdentities.unlinkAll(userId);
  await deps.devices.deleteAllOfUser(userId);
  if (erasure.avatar) await deps.avatars.remove(erasure.avatar);
  await deps.avatars.removeAllOf(userId);
  await deps.erasures.close(userId);
  return true;
}
