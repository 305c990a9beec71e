import { type RequestHandler, type Response, Router } from 'express';
import { bearerToken } from '@lingua/auth';
import { AppError, parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import type { SocialSignInResult } from '../../domain/social-sign-in.use-case';
import type { AuthFlows } from './auth-flows';
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

const P = '/api/v1/auth';

const SOCIAL_ERRORS = {
  400: 'SOCIAL_LOGIN_ERROR or VALIDATION_ERROR',
  403: 'EMAIL_NOT_VERIFIED: an account has this address but never verified it',
};

/** Apple and Google answer alike: the auth data with isNewUser and the provider. */
const answerSocialSignIn = (res: Response, result: SocialSignInResult, provider: 'apple' | 'google') =>
  sendSuccess(res, {
    ...authData(result.user, result.session),
    isNewUser: result.isNewUser,
    authProvider: provider,
  });

/** Group A authentication: the spec's request shapes, its authentication data in the `auth` envelope. */
export function authV1Routes(flows: AuthFlows, authenticated: RequestHandler, docs: ApiDocs): Router {
  const router = Router();
  declareRoutes(router, docs, [
    {
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
      handler: async (req, res) => {
        const input = parseInput(RegisterBody, req.body ?? {});
        const { user, session } = await flows.signUp(res, input, { signIn: true });
        sendSuccess(
          res,
          { ...authData(user, session), userRole: user.role, isNewUser: true },
          { status: 201, message: 'Registration successful' },
        );
      },
    },
    {
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
      handler: async (req, res) => {
        const { user, session } = await flows.signIn(req, res, parseInput(LoginBody, req.body ?? {}));
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
      },
    },
    {
      method: 'post',
      path: `${P}/refresh`,
      summary: 'Rotate the refresh token (bearer header, or the cookie plus X-CSRF-Token)',
      auth: 'refresh',
      response: RefreshData,
      errors: { 403: 'cookie used without a valid CSRF token' },
      handler: async (req, res) => {
        const session = await flows.refresh(
          req,
          res,
          bearerToken(req),
          () => new AppError('UNAUTHORIZED', 'Refresh token required in the Authorization header'),
        );
        sendSuccess(res, {
          accessToken: session.accessToken,
          refreshToken: session.refreshToken,
          expiresIn: session.expiresIn,
          tokenType: 'Bearer',
        });
      },
    },
    {
      method: 'post',
      path: `${P}/logout`,
      summary: 'End the sign-in: the access token is blacklisted and its sign-in’s refresh token revoked',
      auth: 'access',
      response: LogoutData,
      before: [authenticated],
      handler: async (req, res) => {
        await flows.logOut(req, res);
        sendSuccess(res, { loggedOut: true, tokenBlacklisted: true }, { message: 'Logged out' });
      },
    },
    {
      method: 'post',
      path: `${P}/apple`,
      summary: 'Sign in with Apple (identityToken verified against Apple JWKS; optional raw nonce)',
      auth: 'none',
      body: AppleBody,
      response: AuthData,
      errors: SOCIAL_ERRORS,
      handler: async (req, res) => {
        const body = parseInput(AppleBody, req.body ?? {});
        const name = [body.fullName?.givenName, body.fullName?.familyName].filter(Boolean).join(' ').trim();
        const result = await flows.socialSignIn(res, {
          provider: 'apple',
          token: body.identityToken,
          nonce: body.nonce,
          claimedSubject: body.userIdentifier,
          authorizationCode: body.authorizationCode,
          displayName: name ? name.slice(0, 50) : undefined,
          deviceId: body.deviceId,
        });
        answerSocialSignIn(res, result, 'apple');
      },
    },
    {
      method: 'post',
      path: `${P}/google`,
      summary: 'Sign in with Google (idToken verified against Google JWKS)',
      auth: 'none',
      body: GoogleBody,
      response: AuthData,
      errors: SOCIAL_ERRORS,
      handler: async (req, res) => {
        const body = parseInput(GoogleBody, req.body ?? {});
        const result = await flows.socialSignIn(res, {
          provider: 'google',
          token: body.idToken,
          nonce: body.nonce,
          deviceId: body.deviceId,
        });
        answerSocialSignIn(res, result, 'google');
      },
    },
  ]);
  return router;
}
