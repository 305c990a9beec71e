import { type RequestHandler, Router } from 'express';
import { AppError, parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { Logger } from '@lingua/logger';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import type { IdentityDeps } from '../../domain/identity-deps';
import { admitAccountMail } from '../../domain/email-links';
import { requestPasswordReset, resetPassword } from '../../domain/password-reset.use-case';
import { verifyEmail } from '../../domain/verify-email.use-case';
import type { AuthFlows } from './auth-flows';
import {
  CatalogueGoogleBody,
  CatalogueLoginBody,
  CatalogueLogoutBody,
  CatalogueRefreshBody,
  CatalogueRegisterBody,
  CatalogueSessionData,
  ForgotPasswordBody,
  MessageData,
  PublicUser,
  ResetPasswordBody,
  VerifyEmailBody,
} from './auth-catalogue.schemas';
import { RefreshData } from './auth-v1.schemas';
import { publicUser } from './presenters';
import { z } from 'zod';

const P = '/api/auth';

/** Group C authentication: catalogue request shapes, envelope and codes (AUTH001…, VAL001…, RES002…). */
export function authCatalogueRoutes(
  deps: IdentityDeps,
  flows: AuthFlows,
  authenticated: RequestHandler,
  docs: ApiDocs,
  logger: Logger,
): Router {
  const router = Router();
  declareRoutes(router, docs, [
    {
      method: 'post',
      path: `${P}/register`,
      summary: 'Register (password confirmed); sends a verification e-mail',
      auth: 'none',
      body: CatalogueRegisterBody,
      example: {
        email: 'ana@example.com',
        username: 'ana_learns',
        password: 'Secret123',
        confirmPassword: 'Secret123',
      },
      response: z.object({
        user: PublicUser.pick({ id: true, email: true, username: true }),
        message: z.string(),
      }),
      status: 201,
      errors: {
        409: 'RES002: e-mail or username exists',
        429: 'RATE001: the address was sent its account e-mails for the hour',
      },
      handler: async (req, res) => {
        const { confirmPassword: _confirm, ...input } = parseInput(CatalogueRegisterBody, req.body ?? {});
        const { user } = await flows.signUp(res, input, { signIn: false });
        sendSuccess(
          res,
          {
            user: { id: user.id, email: user.email, username: user.username },
            message: 'Registration successful; a verification e-mail is on its way',
          },
          { status: 201 },
        );
      },
    },
    {
      method: 'post',
      path: `${P}/login`,
      summary: 'Sign in',
      auth: 'none',
      body: CatalogueLoginBody,
      example: { email: 'ana@example.com', password: 'Secret123', rememberMe: true },
      response: CatalogueSessionData,
      errors: {
        401: 'AUTH003 wrong e-mail or password',
        403: 'EMAIL_NOT_VERIFIED',
        423: 'locked',
        429: 'RATE001',
      },
      handler: async (req, res) => {
        const { user, session } = await flows.signIn(
          req,
          res,
          parseInput(CatalogueLoginBody, req.body ?? {}),
        );
        sendSuccess(res, {
          user: publicUser(user),
          accessToken: session.accessToken,
          refreshToken: session.refreshToken,
          expiresIn: session.expiresIn,
        });
      },
    },
    {
      method: 'post',
      path: `${P}/logout`,
      summary:
        'Log out: end the sign-in of the access token (and of the refresh token given), or every session with allDevices',
      auth: 'access',
      body: CatalogueLogoutBody,
      response: MessageData.extend({ sessionsEnded: z.number().int() }),
      before: [authenticated],
      handler: async (req, res) => {
        const body = parseInput(CatalogueLogoutBody, req.body ?? {});
        const sessionsEnded = await flows.logOut(req, res, body);
        sendSuccess(res, {
          message: body.allDevices ? 'Logged out on all devices' : 'Logged out',
          sessionsEnded,
        });
      },
    },
    {
      method: 'post',
      path: `${P}/refresh`,
      summary: 'Rotate the refresh token (body, or the cookie plus X-CSRF-Token)',
      auth: 'none',
      body: CatalogueRefreshBody,
      response: RefreshData.omit({ tokenType: true }),
      errors: { 401: 'AUTH001 invalid or reused token, AUTH002 expired', 403: 'CSRF' },
      handler: async (req, res) => {
        const body = parseInput(CatalogueRefreshBody, req.body ?? {});
        const session = await flows.refresh(
          req,
          res,
          body.refreshToken,
          () =>
            new AppError('VALIDATION_ERROR', 'Validation failed', {
              details: { refreshToken: ['Required'] },
            }),
        );
        sendSuccess(res, {
          accessToken: session.accessToken,
          refreshToken: session.refreshToken,
          expiresIn: session.expiresIn,
        });
      },
    },
    {
      method: 'post',
      path: `${P}/verify-email`,
      summary: 'Confirm the e-mail address with the mailed token (24 hours, single use)',
      auth: 'none',
      body: VerifyEmailBody,
      response: z.object({ message: z.string(), user: PublicUser }),
      errors: { 400: 'VAL002 invalid, expired or used token' },
      handler: async (req, res) => {
        const { token } = parseInput(VerifyEmailBody, req.body ?? {});
        const user = await verifyEmail(token, deps);
        sendSuccess(res, { message: 'E-mail verified', user: publicUser(user) });
      },
    },
    {
      method: 'post',
      path: `${P}/forgot-password`,
      summary: 'Request a password-reset e-mail (same answer whether or not the address exists)',
      auth: 'none',
      body: ForgotPasswordBody,
      response: MessageData,
      errors: { 429: 'RATE001: this address was sent its e-mails for the hour (any address, known or not)' },
      handler: async (req, res) => {
        const { email } = parseInput(ForgotPasswordBody, req.body ?? {});
        // The address's e-mail budget first (429 RATE001 when spent: counted for every address alike).
        await admitAccountMail(email, deps);
        // Answer first, then work: same answer, same timing, whether or not the address exists.
        sendSuccess(res, { message: 'If an account exists for this e-mail, a reset link has been sent' });
        setImmediate(() => {
          requestPasswordReset(email, deps).catch((err: unknown) =>
            logger.error({ err }, 'password reset request failed'),
          );
        });
      },
    },
    {
      method: 'post',
      path: `${P}/reset-password`,
      summary: 'Set a new password with the mailed token (15 minutes, single use); ends every session',
      auth: 'none',
      body: ResetPasswordBody,
      response: MessageData,
      errors: { 400: 'VAL001 invalid password, VAL002 invalid, expired or used token' },
      handler: async (req, res) => {
        const input = parseInput(ResetPasswordBody, req.body ?? {});
        await resetPassword(input, deps);
        sendSuccess(res, { message: 'Password has been reset; sign in with the new password' });
      },
    },
    {
      method: 'post',
      path: `${P}/google`,
      summary: 'Sign in with Google',
      auth: 'none',
      body: CatalogueGoogleBody,
      response: z.object({
        user: PublicUser,
        accessToken: z.string(),
        refreshToken: z.string(),
        isNewUser: z.boolean(),
      }),
      errors: {
        400: 'SOCIAL_LOGIN_ERROR (AUTH003)',
        403: 'EMAIL_NOT_VERIFIED: an account has this address but never verified it',
      },
      handler: async (req, res) => {
        const body = parseInput(CatalogueGoogleBody, req.body ?? {});
        const result = await flows.socialSignIn(res, {
          provider: 'google',
          token: body.idToken,
          nonce: body.nonce,
        });
        sendSuccess(res, {
          user: publicUser(result.user),
          accessToken: result.session.accessToken,
          refreshToken: result.session.refreshToken,
          isNewUser: result.isNewUser,
        });
      },
    },
  ]);
  return router;
}
