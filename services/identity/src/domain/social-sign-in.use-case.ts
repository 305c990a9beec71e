import { randomBytes, randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { SocialProvider, VerifiedIdentity } from './ports';
import type { IdentityDeps } from './identity-deps';
import { endAllSessions, type IssuedSession, issueSession } from './sessions';
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
 * already linked signs into its user; an e-mail verified by the provider links to the existing
 * account with that address only if the account verified it too (else 403 EMAIL_NOT_VERIFIED), and
 * linking ends the account's other sessions; anyone else gets a new account with a generated username.
 */
export async function socialSignIn(
  input: SocialSignInInput,
  deps: IdentityDeps,
): Promise<SocialSignInResult> {
  if (!input.token)
    throw new AppError('SOCIAL_LOGIN_ERROR', `${input.provider} identity token is required`, {
      details: { reason: 'missing_token' },
    });
  const nonceRequired =
    input.provider === 'apple' ? deps.config.APPLE_NONCE_REQUIRED : deps.config.GOOGLE_NONCE_REQUIRED;
  const identity = await deps.providers.verify(input.provider, input.token, {
    ...(input.nonce !== undefined && { nonce: input.nonce }),
    nonceRequired,
  });
  if (input.claimedSubject !== undefined && input.claimedSubject !== identity.subject)
    throw new AppError('SOCIAL_LOGIN_ERROR', 'userIdentifier does not match the identity token', {
      details: { reason: 'subject_mismatch' },
    });

  const { user, isNewUser, linked } = await findOrCreateUser(identity, input, deps);
  if (input.provider === 'apple' && input.authorizationCode && deps.apple)
    await keepAppleGrant(identity.subject, input.authorizationCode, deps);
  // A new way into an existing account: whoever held a session before (perhaps not the owner) is out.
  if (linked) await endAllSessions(user.id, 'provider-linked', deps);
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

/**
 * `linked`: the provider subject was linked just now to an account that already existed (by its
 * e-mail address); the caller ends that account's other sessions.
 */
async function findOrCreateUser(
  identity: VerifiedIdentity,
  input: SocialSignInInput,
  deps: IdentityDeps,
): Promise<{ user: User; isNewUser: boolean; linked: boolean }> {
  const now = deps.clock.now();
  const linkedId = await deps.socialIdentities.findUserId(identity.provider, identity.subject);
  if (linkedId) {
    const linked = await deps.users.findById(linkedId);
    if (linked) return { user: linked, isNewUser: false, linked: false };
  }
  if (!linkedId && identity.email && identity.emailVerified) {
    const sameEmail = await deps.users.findByEmail(identity.email);
    if (sameEmail) {
      // Pre-account takeover: anyone can register an address they do not own and wait for its
      // owner to come with Apple or Google. Only an account that proved the address is joined; the
      // owner of an unproven one proves it first (the verification link, or a password reset).
      if (!sameEmail.emailVerified)
        throw new AppError(
          'EMAIL_NOT_VERIFIED',
          'An account with this e-mail exists but its address was never verified: verify it (or reset the password) first, then sign in with this provider',
          { details: { reason: 'account_email_not_verified', provider: identity.provider } },
        );
      const owner = await deps.socialIdentities.link(identity.provider, identity.subject, sameEmail.id, now);
      const user = owner === sameEmail.id ? sameEmail : await deps.users.findById(owner);
      if (user) return { user, isNewUser: false, linked: owner === sameEmail.id };
    }
  }
  // Link first (the subject's one-and-only claim), then create: two racing first sign-ins get one account.
  const candidate = linkedId ?? randomUUID();
  const owner =
    linkedId ?? (await deps.socialIdentities.link(identity.provider, identity.subject, candidate, now));
  if (owner !== candidate) {
    const winner = await deps.users.findById(owner);
    if (winner) return { user: winner, isNewUser: false, linked: false };
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
  return { user, isNewUser: true, linked: false };
}
