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

/**
 * Password sign-in: IP rate limit, then lockout (5 failures lock the e-mail for 15 minutes, counted
 * for unknown addresses too so nothing reveals which exist), then one bcrypt comparison.
 */
export async function signIn(
  input: SignInInput,
  deps: IdentityDeps,
): Promise<{ user: User; session: IssuedSession }> {
  await limitByIp(input.ip, deps);
  const now = deps.clock.now();
  const state = await deps.attempts.failures(input.email);
  if (state.lockedUntil !== null) {
    if (state.lockedUntil > now.getTime()) {
      const retryAfter = Math.ceil((state.lockedUntil - now.getTime()) / 1000);
      throw new AppError('ACCOUNT_LOCKED', 'Account is locked after repeated failed sign-ins', {
        details: { lockoutTime: new Date(state.lockedUntil).toISOString(), retryAfter },
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    await deps.attempts.reset(input.email); // the lock has run out: a fresh start
  }

  const credentials = await deps.users.findCredentials({ email: input.email });
  const ok = await deps.hasher.verify(input.password, credentials?.passwordHash);
  if (!ok || !credentials) {
    const after = await deps.attempts.recordFailure(
      input.email,
      POLICY.lockAfterFailures,
      now.getTime() + POLICY.lockDurationMs,
    );
    throw new AppError('INVALID_CREDENTIALS', 'Invalid e-mail or password', {
      details: {
        attemptCount: after.count,
        remainingAttempts: Math.max(0, POLICY.lockAfterFailures - after.count),
        lockoutTime: after.lockedUntil === null ? null : new Date(after.lockedUntil).toISOString(),
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
