import { AppError } from '@lingua/errors';
import type { IdentityDeps } from './identity-deps';
import { sha256 } from './secrets';
import type { User } from './user';

/** Confirms the address with the single-use token mailed at registration (valid 24 hours). */
export async function verifyEmail(token: string, deps: IdentityDeps): Promise<User> {
  const consumed = await deps.oneTimeTokens.consume(sha256(token), 'verify-email', deps.clock.now());
  const user = consumed && (await deps.users.markEmailVerified(consumed.userId));
  if (!user) throw new AppError('INVALID_INPUT', 'Verification link is invalid, expired or already used');
  return user;
}
