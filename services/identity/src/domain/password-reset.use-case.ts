import { AppError } from '@lingua/errors';
import { requestResetLink } from './email-links';
import type { IdentityDeps } from './identity-deps';
import { sha256 } from './secrets';
import { endAllSessions } from './sessions';

/**
 * Asks notifications to mail a reset link if the address has an account. Callers take the e-mail
 * from the address's budget (admitAccountMail) and answer the client before this runs, so neither
 * the answer nor its timing says whether the address exists.
 */
export async function requestPasswordReset(email: string, deps: IdentityDeps): Promise<void> {
  const user = await deps.users.findByEmail(email);
  if (!user) return;
  await requestResetLink(user, deps);
  deps.kickOutbox();
}

/**
 * Sets a new password with a single-use reset token (15 minutes). Every sign-in of the account ends
 * (refresh families revoked and their access tokens blacklisted), other outstanding reset links die,
 * and the lockout is lifted. The link came by e-mail, so using it proves the address: it counts as
 * verified from then on (how the owner of an address someone else registered takes it back).
 */
export async function resetPassword(input: { token: string; newPassword: string }, deps: IdentityDeps) {
  const now = deps.clock.now();
  const consumed = await deps.oneTimeTokens.consume(sha256(input.token), 'reset-password', now);
  if (!consumed) throw new AppError('INVALID_INPUT', 'Reset link is invalid, expired or already used');
  const user = await deps.users.findById(consumed.userId);
  if (!user) throw new AppError('INVALID_INPUT', 'Reset link is invalid, expired or already used');
  await deps.users.setPassword(user.id, await deps.hasher.hash(input.newPassword));
  await deps.oneTimeTokens.invalidateAll(user.id, 'reset-password', now);
  if (!user.emailVerified) await deps.users.markEmailVerified(user.id);
  await endAllSessions(user.id, 'password-reset', deps);
  await deps.attempts.reset(user.email);
}
