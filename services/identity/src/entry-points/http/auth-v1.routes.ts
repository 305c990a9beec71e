import { type RequestHandler, type Response, Router } from 'express';
import { bearerToken, currentUser } from '@lingua/auth';
import { AppError, parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { ApiDocs } from '@lingua/openapi';
import type { IdentityDeps } from '../../domain/identity-deps';
import { registerUser } from '../../domain/register-user.use-case';
import { issueSession, logOut, refreshSession } from '../../domain/sessions';
import { measuredSignIn } from './sign-in.metrics';
import { socialSignIn, type SocialSignInResult } from '../../domain/social-sign-in.use-case';
import {
  AppleBody,
  AuthData,
  GoogleBody,
  LoginBody,
  LogoutData,
  RefreshData,
  RegisterBody,
} from './auth-v1.schemas';
import { authData } from './presenters';
import { clearSessionCookies, refreshTokenFromCookie, setSessionCookies } from './refresh-cookie';

const P = '/api/v1/auth';

/** Group A authentication: the spec's authentication data in the `auth` envelope. */
export function authV1Routes(deps: IdentityDeps, authenticated: RequestHandler, docs: ApiDocs): Router {
  const router = Router();
  const secure = deps.config.IDENTITY_COOKIE_SECURE;

  router.post(`${P}/register`, async (req, res) => {
    const input = parseInput(RegisterBody, req.body ?? {});
    const user = await registerUser(input, deps);
    const session = await issueSession(user, { rememberMe: true }, deps);
    setSessionCookies(res, session, secure);
    sendSuccess(
      res,
      { ...authData(user, session), userRole: user.role, isNewUser: true },
      { status: 201, message: 'Registration successful' },
    );
  });
  docs.route({
    method: 'post',
    path: `${P}/register`,
    summary: 'Register with e-mail and password (optional guest deviceId)',
    auth: 'none',
    body: RegisterBody,
    example: { email: 'ana@example.com', password: 'Secret123', username: 'ana_learns' },
    response: AuthData,
    status: 201,
    errors: {
      409: 'EMAIL_EXISTS or USERNAME_EXISTS',
      429: 'RATE_LIMITED: the address was sent its account e-mails for the hour',
    },
  });

  router.post(`${P}/login`, async (req, res) => {
    const input = parseInput(LoginBody, req.body ?? {});
    const { user, session } = await measuredSignIn({ ...input, ip: req.ip ?? 'unknown' }, deps);
    setSessionCookies(res, session, secure);
    sendSuccess(
      res,
      {
        ...authData(user, session),
        userRole: user.role,
        subscriptionStatus: user.subscriptionStatus,
        lastLoginAt: user.lastLoginAt?.toISOString(),
      },
      { message: 'Login successful' },
    );
  });
  docs.route({
    method: 'post',
    path: `${P}/login`,
    summary: 'Sign in with e-mail and password',
    auth: 'none',
    body: LoginBody,
    example: { email: 'ana@example.com', password: 'Secret123' },
    response: AuthData,
    errors: {
      401: 'INVALID_CREDENTIALS (details: attemptCount, lockoutTime)',
      403: 'EMAIL_NOT_VERIFIED (when verification is required)',
      423: 'ACCOUNT_LOCKED',
      429: 'more than 5 attempts per minute from this IP',
    },
  });

  router.post(`${P}/refresh`, async (req, res) => {
    const token = bearerToken(req) ?? refreshTokenFromCookie(req);
    if (!token) throw new AppError('UNAUTHORIZED', 'Refresh token required in the Authorization header');
    const session = await refreshSession(token, deps);
    setSessionCookies(res, session, secure);
    sendSuccess(res, {
      accessToken: session.accessToken,
      refreshToken: session.refreshToken,
      expiresIn: session.expiresIn,
      tokenType: 'Bearer',
    });
  });
  docs.route({
    method: 'post',
    path: `${P}/refresh`,
    summary: 'Rotate the refresh token (bearer header, or the cookie plus X-CSRF-Token)',
    auth: 'refresh',
    response: RefreshData,
    errors: { 403: 'cookie used without a valid CSRF token' },
  });

  router.post(`${P}/logout`, authenticated, async (req, res) => {
    const user = currentUser(res);
    // A web client's refresh cookie ends with its session (no CSRF needed: logging out is harmless).
    const cookieToken = (req.cookies as Record<string, unknown> | undefined)?.lingua_refresh;
    await logOut(
      {
        userId: user.sub,
        accessToken: user,
        refreshTokens: [typeof cookieToken === 'string' ? cookieToken : undefined],
      },
      deps,
    );
    clearSessionCookies(res, secure);
    sendSuccess(res, { loggedOut: true, tokenBlacklisted: true }, { message: 'Logged out' });
  });
  docs.route({
    method: 'post',
    path: `${P}/logout`,
    summary: 'End the sign-in: the access token is blacklisted and its sign-in’s refresh token revoked',
    auth: 'access',
    response: LogoutData,
  });

  /** Apple and Google answer alike: the session cookies and the auth data with isNewUser and the provider. */
  const answerSocialSignIn = (res: Response, result: SocialSignInResult, provider: 'apple' | 'google') => {
    setSessionCookies(res, result.session, secure);
    sendSuccess(res, {
      ...authData(result.user, result.session),
      isNewUser: result.isNewUser,
      authProvider: provider,
    });
  };

  router.post(`${P}/apple`, async (req, res) => {
    const body = parseInput(AppleBody, req.body ?? {});
    const name = [body.fullName?.givenName, body.fullName?.familyName].filter(Boolean).join(' ').trim();
    const result = await socialSignIn(
      {
        provider: 'apple',
        token: body.identityToken,
        nonce: body.nonce,
        claimedSubject: body.userIdentifier,
        authorizationCode: body.authorizationCode,
        displayName: name ? name.slice(0, 50) : undefined,
        deviceId: body.deviceId,
      },
      deps,
    );
    answerSocialSignIn(res, result, 'apple');
  });
  docs.route({
    method: 'post',
    path: `${P}/apple`,
    summary: 'Sign in with Apple (identityToken verified against Apple JWKS; optional raw nonce)',
    auth: 'none',
    body: AppleBody,
    response: AuthData,
    errors: {
      400: 'SOCIAL_LOGIN_ERROR or VALIDATION_ERROR',
      403: 'EMAIL_NOT_VERIFIED: an account has this address but never verified it',
    },
  });

  router.post(`${P}/google`, async (req, res) => {
    const body = parseInput(GoogleBody, req.body ?? {});
    const result = await socialSignIn(
      { provider: 'google', token: body.idToken, nonce: body.nonce, deviceId: body.deviceId },
      deps,
    );
    answerSocialSignIn(res, result, 'google');
  });
  docs.route({
    method: 'post',
    path: `${P}/google`,
    summary: 'Sign in with Google (idToken verified against Google JWKS)',
    auth: 'none',
    body: GoogleBody,
    response: AuthData,
    errors: {
      400: 'SOCIAL_LOGIN_ERROR or VALIDATION_ERROR',
      403: 'EMAIL_NOT_VERIFIED: an account has this address but never verified it',
    },
  });

  return router;
}
