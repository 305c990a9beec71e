import { makeEvent, sealAccountMail } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import { currentRequestContext } from '@lingua/logger';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';
import { randomToken, sha256 } from './secrets';
import type { User } from './user';

type LinkDeps = Pick<IdentityDeps, 'oneTimeTokens' | 'clock' | 'config'>;

/**
 * Takes one account e-mail (reset or verification) from the address's budget, or refuses with 429
 * RATE_LIMITED (RATE001) and Retry-After. Counted per address whether or not an account has it and
 * before anything looks the address up, so the answer (and its timing) says nothing about which
 * addresses exist; it only stops anyone from flooding one mailbox.
 */
export async function admitAccountMail(
  email: string,
  deps: Pick<IdentityDeps, 'mailBudget' | 'clock' | 'config'>,
): Promise<void> {
  const limit = deps.config.IDENTITY_ACCOUNT_MAILS_PER_HOUR;
  const allowance = await deps.mailBudget.take(
    email,
    deps.clock.now().getTime(),
    limit,
    POLICY.accountMailWindowMs,
  );
  if (allowance.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(allowance.retryAfterMs / 1000));
  throw new AppError('RATE_LIMITED', 'Too many e-mails to this address; try again later', {
    details: { retryAfter, limit },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

const link = (base: string, path: string, token: string) =>
  `${base.replace(/\/+$/, '')}${path}?token=${encodeURIComponent(token)}`;

/**
 * Creates a single-use verification token (hash stored) and the event asking notifications to mail
 * its link. The token is stored first, so an event never points at a token that does not exist.
 */
export async function emailVerificationRequest(user: Pick<User, 'id' | 'email'>, deps: LinkDeps) {
  const now = deps.clock.now();
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + POLICY.verifyTokenTtlMs);
  await deps.oneTimeTokens.create({
    hash: sha256(token),
    kind: 'verify-email',
    userId: user.id,
    now,
    expiresAt,
  });
  return makeEvent(
    'user.email_verification_requested',
    {
      userId: user.id,
      // sealed: the stream keeps events 7 days for every subscriber; only notifications can open it
      mail: sealAccountMail(deps.config.emailLinkKey, 'user.email_verification_requested', {
        email: user.email,
        url: link(deps.config.IDENTITY_PUBLIC_BASE_URL, '/verify-email', token),
        // the mail is written in the language the user asked in
        language: currentRequestContext()?.language,
      }),
      expiresAt: expiresAt.toISOString(),
    },
    { now },
  );
}

/**
 * A single-use reset token (15 minutes) stored with the event that asks notifications to mail its
 * link: one insert, so the mail request cannot be lost and never points at a missing token.
 */
export async function requestResetLink(user: Pick<User, 'id' | 'email'>, deps: LinkDeps): Promise<void> {
  const now = deps.clock.now();
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + POLICY.resetTokenTtlMs);
  const event = makeEvent(
    'user.password_reset_requested',
    {
      userId: user.id,
      mail: sealAccountMail(deps.config.emailLinkKey, 'user.password_reset_requested', {
        email: user.email,
        url: link(deps.config.IDENTITY_PUBLIC_BASE_URL, '/reset-password', token),
        // the mail is written in the language the user asked in
        language: currentRequestContext()?.language,
      }),
      expiresAt: expiresAt.toISOString(),
    },
    { now },
  );
  await deps.oneTimeTokens.create(
    { hash: sha256(token), kind: 'reset-password', userId: user.id, now, expiresAt },
    [event],
  );
}
