import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { IdentityDeps } from './identity-deps';
import { endAllSessions } from './sessions';

/** Apple requires an app that deletes an account to revoke its Sign in with Apple grant; best effort. */
async function revokeProviderGrants(userId: string, deps: IdentityDeps) {
  if (!deps.apple) return;
  for (const { provider, token } of await deps.socialIdentities.providerRefreshTokensOf(userId)) {
    if (provider !== 'apple') continue;
    await deps.apple
      .revoke(token)
      .catch((err: unknown) =>
        deps.logger.error({ err, userId }, 'apple: grant not revoked on account deletion; revoke it by hand'),
      );
  }
}

/**
 * Deletes the account after a password confirmation (accounts without a password, made by Apple or
 * Google sign-in, confirm with their valid access token alone). user.deleted goes out through the
 * outbox, every sign-in ends with the access tokens it issued, and the current access token is blacklisted.
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
  // the reason is the user's own words: kept with the account record, not sent to every subscriber
  const event = makeEvent('user.deleted', { userId: input.userId }, { now });
  await deps.users.softDelete(input.userId, now, event, input.reason);
  deps.kickOutbox();
  await endAllSessions(input.userId, 'account-deleted', deps);
  await revokeProviderGrants(input.userId, deps);
  await deps.socialIdentities.unlinkAll(input.userId);
  await deps.blacklist.revoke(input.accessJti, input.accessExp);
  await deps.attempts.reset(credentials.user.email);
  const avatar = credentials.user.profile.avatarUrl?.split('/').pop();
  if (avatar) await deps.avatars.remove(avatar);
}
