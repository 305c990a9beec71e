import { randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import { admitAccountMail, emailVerificationRequest } from './email-links';
import type { IdentityDeps } from './identity-deps';
import type { User } from './user';

export interface RegisterUserInput {
  email: string;
  password: string;
  username: string;
  preferredLanguage?: string | undefined;
  nativeLanguage?: string | undefined;
  deviceId?: string | undefined;
}

/**
 * Creates a password account. The user, user.created and the verification-mail request are one
 * single-document write (outbox), so neither event can be lost.
 */
export async function registerUser(input: RegisterUserInput, deps: IdentityDeps): Promise<User> {
  // Pre-checks name the conflict precisely (the database error does not say which index).
  if (await deps.users.emailTaken(input.email))
    throw new AppError('EMAIL_EXISTS', 'E-mail is already registered');
  if (await deps.users.usernameTaken(input.username))
    throw new AppError('USERNAME_EXISTS', 'Username is already taken');
  // the verification e-mail comes out of the address's budget (429 when it is spent)
  await admitAccountMail(input.email, deps);
  const id = randomUUID();
  const passwordHash = await deps.hasher.hash(input.password);
  const now = deps.clock.now();
  const created = makeEvent(
    'user.created',
    {
      userId: id,
      email: input.email,
      username: input.username,
      authProvider: 'password',
      ...(input.preferredLanguage && { preferredLanguage: input.preferredLanguage }),
      ...(input.deviceId && { deviceId: input.deviceId }),
    },
    { now },
  );
  const verification = await emailVerificationRequest({ id, email: input.email }, deps);
  const user = await deps.users.create(
    {
      id,
      email: input.email,
      username: input.username,
      passwordHash,
      emailVerified: false,
      authProvider: 'password',
      profile: {
        preferredLanguage: input.preferredLanguage ?? null,
        nativeLanguage: input.nativeLanguage ?? null,
      },
      lastLoginAt: null,
    },
    [created, verification],
  );
  deps.kickOutbox();
  return user;
}
