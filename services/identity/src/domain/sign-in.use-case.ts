import { AppError } from '@lingua/errors';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';
import { type IssuedSession, issueSession } from './sessions';
import type { User } from './user';

export interface SignInInput {
  email: string;
  password: string;
  rememberMe?: boolean | undefined;
  ip: string;
}

/** 429 beyond 5 login attempts per minute from one IP (fixed one-minute windows of the injected clock). */
async function limitByIp(ip: string, deps: IdentityDeps): Promise<void> {
  const now = deps.clock.now().getTime();
  const windowStart = now - (now % POLICY.loginIpWindowMs);
  const n = await deps.attempts.countIpAttempt(ip, windowStart, POLICY.loginIpWindowMs);
  if (n > POLICY.loginAttemptsPerIpPerWindow) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + POLICY.loginIpWindowMs - now) / 1000));
    throw new AppError('RATE_LIMITED', 'Too many login attempts; try again later', {
      details: { retryAfter, limit: POLICY.loginAttemptsPerIpPerWindow },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

const lockedError = (lockedUntil: number, now: Date) => {
  const retryAfter = Math.max(1, Math.ceil((lockedUntil - now.getTime()) / 1000));
  return new AppError('ACCOUNT_LOCKED', 'Account is locked after repeated failed sign-ins', {
    details: { lockoutTime: new Date(lockedUntil).toISOString(), retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
};

/**
 * Password sign-in: IP rate limit, then the attempt is reserved (counted before the comparison, in
 * one atomic step with the lock check: 5 attempts lock the e-mail for 15 minutes, counted for unknown
 * addresses too so nothing reveals which exist), then one bcrypt comparison. A burst of parallel
 * guesses therefore gets at most 5 comparisons per lock; a correct password clears the count.
 */
export async function signIn(
  input: SignInInput,
  deps: IdentityDeps,
): Promise<{ user: User; session: IssuedSession }> {
  await limitByIp(input.ip, deps);
  const now = deps.clock.now();
  const attempt = await deps.attempts.reserve(
    input.email,
    now.getTime(),
    POLICY.lockAfterFailures,
    POLICY.lockDurationMs,
  );
  if (!attempt.granted) throw lockedError(attempt.lockedUntil, now);

  const credentials = await deps.users.findCredentials({ email: input.email });
  const ok = await deps.hasher.verify(input.password, credentials?.passwordHash);
  if (!ok || !credentials) {
    // the attempt was counted when it was reserved
    throw new AppError('INVALID_CREDENTIALS', 'Invalid e-mail or password', {
      details: {
        attemptCount: attempt.count,
        remainingAttempts: Math.max(0, POLICY.lockAfterFailures - attempt.count),
        lockoutTime: attempt.lockedUntil === null ? null : new Date(attempt.lockedUntil).toISOString(),
      },
    });
  }
  await deps.attempts.reset(input.email);
  const { user } = credentials;
  if (deps.config.IDENTITY_REQUIRE_EMAIL_VERIFICATION && !user.emailVerified)
    throw new AppError('EMAIL_NOT_VERIFIED', 'Verify your e-mail address before signing in');
  // not awaited: the sign-in does not wait for a timestamp
  deps.users
    .recordLogin(user.id, now)
    .catch((err: unknown) => deps.logger.warn({ err }, 'lastLoginAt not recorded'));
  const session = await issueSession(user, { rememberMe: input.rememberMe ?? true }, deps);
  return { user: { ...user, lastLoginAt: now }, session };
}
