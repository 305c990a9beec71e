import express, { type Request, type Response, Router } from 'express';
import { AppError, parseInput } from '@lingua/errors';
import type { IdentityDeps } from '../../domain/identity-deps';
import { resetPassword } from '../../domain/password-reset.use-case';
import { randomToken, safeEqual } from '../../domain/secrets';
import { verifyEmail } from '../../domain/verify-email.use-case';
import { ResetPasswordBody, VerifyEmailBody } from './auth-catalogue.schemas';

/**
 * Where the mailed links lead (`/verify-email?token=…`, `/reset-password?token=…` on the public
 * base URL). On a phone with the app, the association files below make the link open the app; in a
 * browser, these pages complete the action. A GET never spends the token (mail scanners open links
 * before the user does): the page holds it in a form that the user submits. The form is guarded by a
 * double-submit cookie (SameSite=Strict), the token never reaches another site (no-referrer) or a
 * cache (no-store), and logs record paths without their query.
 */
const CSRF_COOKIE = 'lingua_link_csrf';
const PAGES = ['/verify-email', '/reset-password'] as const;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .set('Referrer-Policy', 'no-referrer')
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escape(title)} · Lingua</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`,
    );
}

/** A new form's CSRF value: set as an HttpOnly, SameSite=Strict cookie scoped to the page's path. */
function formCsrf(res: Response, path: string, secure: boolean): string {
  const value = randomToken();
  res.cookie(CSRF_COOKIE, value, { httpOnly: true, secure, sameSite: 'strict', path });
  return value;
}

function csrfHolds(req: Request): boolean {
  const cookie = /(?:^|;\s*)lingua_link_csrf=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1];
  const sent = (req.body as Record<string, unknown> | undefined)?.csrf;
  return typeof sent === 'string' && cookie !== undefined && sent !== '' && safeEqual(sent, cookie);
}

const tokenField = (token: string) => `<input type="hidden" name="token" value="${escape(token)}">`;

const messageOf = (err: unknown) =>
  err instanceof AppError && err.status < 500 ? err.message : 'Something went wrong; please try again later.';

export function emailLinkPages(deps: IdentityDeps): Router {
  const router = Router();
  const secure = deps.config.IDENTITY_COOKIE_SECURE;
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });

  router.get('/verify-email', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!token)
      return page(
        res,
        400,
        'Link incomplete',
        '<p>This link has no token. Open the link from the e-mail again.</p>',
      );
    const csrf = formCsrf(res, '/verify-email', secure);
    page(
      res,
      200,
      'Confirm your e-mail address',
      `<form method="post" action="/verify-email">${tokenField(token)}` +
        `<input type="hidden" name="csrf" value="${csrf}"><button type="submit">Confirm</button></form>`,
    );
  });

  router.get('/reset-password', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!token)
      return page(
        res,
        400,
        'Link incomplete',
        '<p>This link has no token. Open the link from the e-mail again.</p>',
      );
    const csrf = formCsrf(res, '/reset-password', secure);
    page(
      res,
      200,
      'Choose a new password',
      `<form method="post" action="/reset-password">${tokenField(token)}<input type="hidden" name="csrf" value="${csrf}">` +
        `<p><label>New password <input type="password" name="newPassword" autocomplete="new-password" required></label></p>` +
        `<p><label>Repeat it <input type="password" name="confirmPassword" autocomplete="new-password" required></label></p>` +
        `<button type="submit">Set password</button></form>`,
    );
  });

  router.post([...PAGES], form, async (req, res) => {
    if (!csrfHolds(req))
      return page(
        res,
        403,
        'Form expired',
        '<p>Open the link from the e-mail again and submit the form from there.</p>',
      );
    const body = req.body as Record<string, unknown>;
    try {
      if (req.path === '/verify-email') {
        const { token } = parseInput(VerifyEmailBody, { token: body.token });
        await verifyEmail(token, deps);
        return page(res, 200, 'E-mail address confirmed', '<p>You can go back to the app.</p>');
      }
      const input = parseInput(ResetPasswordBody, {
        token: body.token,
        newPassword: body.newPassword,
        confirmPassword: body.confirmPassword,
      });
      await resetPassword(input, deps);
      return page(res, 200, 'Password changed', '<p>Sign in in the app with your new password.</p>');
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return page(res, err.status, 'That did not work', `<p>${escape(messageOf(err))}</p>`);
    }
  });

  // the association files: the links open the app where it is installed
  router.get('/.well-known/apple-app-site-association', (_req, res) => {
    const appIDs = deps.config.IDENTITY_APPLE_APP_IDS;
    if (appIDs.length === 0) throw new AppError('NOT_FOUND', 'No iOS app is configured');
    res.set('Cache-Control', 'public, max-age=3600').json({
      applinks: { details: [{ appIDs, components: PAGES.map((p) => ({ '/': p, '?': { token: '?*' } })) }] },
    });
  });
  router.get('/.well-known/assetlinks.json', (_req, res) => {
    const apps = deps.config.IDENTITY_ANDROID_APPS;
    if (apps.length === 0) throw new AppError('NOT_FOUND', 'No Android app is configured');
    res.set('Cache-Control', 'public, max-age=3600').json(
      apps.map(({ packageName, fingerprints }) => ({
        relation: ['delegate_permission/common.handle_all_urls'],
        target: {
          namespace: 'android_app',
          package_name: packageName,
          sha256_cert_fingerprints: fingerprints,
        },
      })),
    );
  });
  return router;
}
