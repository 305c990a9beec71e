import { randomBytes, randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { SocialProvider, VerifiedIdentity } from './ports';
import type { IdentityDeps } from './identity-deps';
import { type IssuedSession, issueSession } from './sessions';
import type { User } from './user';

export interface SocialSignInInput {
  provider: SocialProvider;
  token: string | undefined;
  nonce?: string | undefined;
  /** Apple's userIdentifier: when sent, it must be the verified token's subject. */
  claimedSubject?: string | undefined;
  /** Apple's one-time authorizationCode: redeemed for the grant's refresh token when a key is configured. */
  authorizationCode?: string | undefined;
  /** Apple sends the name only in the body, only on first sign-in: profile data, never identity. */
  displayName?: string | undefined;
  deviceId?: string | undefined;
}

export interface SocialSignInResult {
  user: User;
  session: IssuedSession;
  isNewUser: boolean;
}

/** A username from the e-mail's local part, made valid (3-20 of letters, digits, underscore) and unique-ish. */
export function generateUsername(email: string | undefined, provider: SocialProvider): string {
  const base = (email?.split('@')[0] ?? '').replace(/[^A-Za-z0-9_]/g, '').slice(0, 12) || provider;
  const suffix = randomBytes(4).readUInt32BE(0).toString(36).slice(0, 6);
  return `${base.length < 3 ? `${base}user` : base}_${suffix}`.slice(0, 20);
}

/**
 * Sign in with Apple or Google. Identity comes only from the verified token: a provider subject
 * already linked signs into its user; a verified e-mail of an existing account links to it; anyone
 * else gets a new account with a generated username.
 */
export async function socialSignIn(
  input: SocialSignInInput,
  deps: IdentityDeps,
): Promise<SocialSignInResult> {
  if (!input.token)
    throw new AppError('SOCIAL_LOGIN_ERROR', `${input.provider} identity token is required`, {
      details: { reason: 'missing_token' },
    });
  const identity = await deps.providers.verify(input.provider, input.token, {
    ...(input.nonce !== undefined && { nonce: input.nonce }),
  });
  if (input.claimedSubject !== undefined && input.claimedSubject !== identity.subject)
    throw new AppError('SOCIAL_LOGIN_ERROR', 'userIdentifier does not match the identity token', {
      details: { reason: 'subject_mismatch' },
    });

  const { user, isNewUser } = await findOrCreateUser(identity, input, deps);
  if (input.provider === 'apple' && input.authorizationCode && deps.apple)
    await keepAppleGrant(identity.subject, input.authorizationCode, deps);
  const now = deps.clock.now();
  await deps.users.recordLogin(user.id, now);
  const session = await issueSession(user, { rememberMe: true }, deps);
  return { user: { ...user, lastLoginAt: now }, session, isNewUser };
}

/**
 * Redeems the authorization code and keeps Apple's refresh token on the link, so that deleting the
 * account can revoke the grant. Sign-in does not depend on it: the identity token is already
 * verified, so a refused or unreachable exchange is logged and the user still signs in.
 */
async function keepAppleGrant(subject: string, code: string, deps: IdentityDeps) {
  try {
    const { refreshToken } = await deps.apple!.exchangeCode(code);
    if (refreshToken) await deps.socialIdentities.saveProviderRefreshToken('apple', subject, refreshToken);
  } catch (err) {
    deps.logger.warn({ err }, 'apple: authorization code not redeemed; the grant cannot be revoked later');
  }
}

async function findOrCreateUser(
  identity: VerifiedIdentity,
  input: SocialSignInInput,
  deps: IdentityDeps,
): Promise<{ user: User; isNewUser: boolean }> {
  const now = deps.clock.now();
  const linkedId = await deps.socialIdentities.findUserId(identity.provider, identity.subject);
  if (linkedId) {
    const linked = await deps.users.findById(linkedId);
    if (linked) return { user: linked, isNewUser: false };
  }
  if (!linkedId && identity.email && identity.emailVerified) {
    const sameEmail = await deps.users.findByEmail(identity.email);
    if (sameEmail) {
      const owner = await deps.socialIdentities.link(identity.provider, identity.subject, sameEmail.id, now);
      const user = owner === sameEmail.id ? sameEmail : await deps.users.findById(owner);
      if (user) return { user, isNewUser: false };
    }
  }
  // Link first (the subject's one-and-only claim), then create: two racing first sign-ins get one account.
  const candidate = linkedId ?? randomUUID();
  const owner =
    linkedId ?? (await deps.socialIdentities.link(identity.provider, identity.subject, candidate, now));
  if (owner !== candidate) {
    const winner = await deps.users.findById(owner);
    if (winner) return { user: winner, isNewUser: false };
  }
  const email =
    identity.email ??
    `${identity.provider}.${identity.subject.replace(/[^A-Za-z0-9]/g, '').slice(0, 40)}@users.noreply.lingua`;
  if (await deps.users.emailTaken(email))
    throw new AppError(
      'SOCIAL_LOGIN_ERROR',
      'This e-mail belongs to an existing account; sign in with its password',
      {
        details: { reason: 'email_not_verified_by_provider' },
      },
    );
  let username = generateUsername(identity.email, identity.provider);
  for (let attempt = 0; attempt < 5 && (await deps.users.usernameTaken(username)); attempt++)
    username = generateUsername(identity.email, identity.provider);
  const created = makeEvent(
    'user.created',
    {
      userId: owner,
      email,
      username,
      authProvider: identity.provider,
      ...(input.deviceId && { deviceId: input.deviceId }),
    },
    { now },
  );
  const user = await deps.users.create(
    {
      id: owner,
      email,
      username,
      passwordHash: null,
      emailVerified: identity.emailVerified,
      authProvider: identity.provider,
      profile: { displayName: input.displayName ?? null },
      lastLoginAt: null,
    },
    [created],
  );
  deps.kickOutbox();
  return { user, isNewUser: true };
}
