import { AppError } from '@lingua/errors';
import { eraseAccount, revokeEveryToken, softDeleteAccount } from './erase-account.use-case';
import type { IdentityDeps } from './identity-deps';

/**
 * Deletes the account after a password confirmation (accounts without a password, made by Apple or
 * Google sign-in, confirm with their valid access token alone). In this order, so that nothing of the
 * user can outlive it: the deletion record (what the sweeper resumes), every token of the user
 * revoked (no other device writes after the services erased), the soft delete that stages
 * user.deleted (every service erases on it), then the clean-up here (sign-ins, links, provider
 * grants, avatar). A step that fails leaves the record, and the pending-erasures sweeper runs the
 * rest (the soft delete included) until it is done; a failed clean-up is answered as done.
 */
export async function deleteAccount(
  input: {
    userId: string;
    password?: string | undefined;
    reason?: string | undefined;
    accessJti: string;
    accessExp: number;
  },
  deps: IdentityDeps,
): Promise<void> {
  const credentials = await deps.users.findCredentials({ id: input.userId });
  if (!credentials) throw new AppError('NOT_FOUND', 'User not found');
  if (credentials.passwordHash) {
    if (!input.password)
      throw new AppError('VALIDATION_ERROR', 'Validation failed', {
        details: { password: ['Password is required'] },
      });
    if (!(await deps.hasher.verify(input.password, credentials.passwordHash)))
      throw new AppError('INVALID_CREDENTIALS', 'Password is incorrect');
  }
  const now = deps.clock.now();
  // the soft delete wipes the profile: the avatar's name is kept on the record until it is removed
  const avatar = credentials.user.profile.avatarUrl?.split('/').pop();
  const erasure = { userId: input.userId, deletedAt: now, avatar, reason: input.reason };
  await deps.erasures.open(erasure);
  await revokeEveryToken(input.userId, now, deps);
  await softDeleteAccount(erasure, deps);
  await deps.attempts
    .reset(credentials.user.email)
    .catch((err: unknown) => deps.logger.warn({ err }, 'sign-in attempts of a deleted account not reset'));
  await eraseAccount({ userId: input.userId, deletedAt: now, avatar, attempts: 1 }, deps).catch(
    (err: unknown) =>
      deps.logger.warn({ err, userId: input.userId }, 'account clean-up failed; the sweeper resumes it'),
  );
}
