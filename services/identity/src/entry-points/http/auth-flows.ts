import type { Request, Response } from 'express';
import { currentUser } from '@lingua/auth';
import type { AppError } from '@lingua/errors';
import type { IdentityDeps } from '../../domain/identity-deps';
import { registerUser, type RegisterUserInput } from '../../domain/register-user.use-case';
import { type IssuedSession, issueSession, logOut, refreshSession } from '../../domain/sessions';
import type { SignInInput } from '../../domain/sign-in.use-case';
import { socialSignIn, type SocialSignInInput } from '../../domain/social-sign-in.use-case';
import type { User } from '../../domain/user';
import { clearSessionCookies, refreshTokenFromCookie, setSessionCookies } from './refresh-cookie';
import { measuredSignIn } from './sign-in.metrics';

export type AuthFlows = ReturnType<typeof authFlows>;

/**
 * Sign-up, sign-in, refresh, logout and social sign-in, each written once for both API faces
 * (Group A /api/v1/auth, Group C /api/auth): the use case, the session cookies, the sign-in metrics.
 * A face's route only parses its request shape and writes its answer shape.
 */
export function authFlows(deps: IdentityDeps) {
  const secure = deps.config.IDENTITY_COOKIE_SECURE;
  const started = <T extends { session: IssuedSession }>(res: Response, result: T): T => {
    setSessionCookies(res, result.session, secure);
    return result;
  };

  /** A new password account; `signIn` starts a remembered session at once (Group A), else none (Group C). */
  function signUp(
    res: Response,
    input: RegisterUserInput,
    options: { signIn: true },
  ): Promise<{ user: User; session: IssuedSession }>;
  function signUp(
    res: Response,
    input: RegisterUserInput,
    options: { signIn: false },
  ): Promise<{ user: User }>;
  async function signUp(res: Response, input: RegisterUserInput, options: { signIn: boolean }) {
    const user = await registerUser(input, deps);
    if (!options.signIn) return { user };
    return started(res, { user, session: await issueSession(user, { rememberMe: true }, deps) });
  }

  return {
    signUp,

    async signIn(req: Request, res: Response, input: Omit<SignInInput, 'ip'>) {
      return started(res, await measuredSignIn({ ...input, ip: req.ip ?? 'unknown' }, deps));
    },

    /**
     * Rotates the refresh token the client sent (where a face takes it from is the face's) or, failing
     * that, the cookie's (with its CSRF check); without either, the face's own error.
     */
    async refresh(req: Request, res: Response, sent: string | undefined, missing: () => AppError) {
      const token = sent ?? refreshTokenFromCookie(req);
      if (!token) throw missing();
      return started(res, { session: await refreshSession(token, deps) }).session;
    },

    /** Ends the caller's sign-in (or every session); answers how many sign-ins ended. */
    async logOut(
      req: Request,
      res: Response,
      input: { allDevices?: boolean | undefined; refreshToken?: string | undefined } = {},
    ) {
      const user = currentUser(res);
      // A web client's refresh cookie ends with its session (no CSRF needed: logging out is harmless).
      const cookieToken = (req.cookies as Record<string, unknown> | undefined)?.lingua_refresh;
      const sessionsEnded = await logOut(
        {
          userId: user.sub,
          accessToken: user,
          allDevices: input.allDevices,
          refreshTokens: [input.refreshToken, typeof cookieToken === 'string' ? cookieToken : undefined],
        },
        deps,
      );
      clearSessionCookies(res, secure);
      return sessionsEnded;
    },

    async socialSignIn(res: Response, input: SocialSignInInput) {
      return started(res, await socialSignIn(input, deps));
    },
  };
}
