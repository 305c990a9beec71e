import type { Request, Response } from 'express';
import { AppError } from '@lingua/errors';
import { POLICY } from '../../domain/policies';
import type { IssuedSession } from '../../domain/sessions';
import { randomToken, safeEqual } from '../../domain/secrets';

export const REFRESH_COOKIE = 'lingua_refresh';
export const CSRF_COOKIE = 'lingua_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Both cookies cover the two auth families (`/api/v1/auth`, `/api/auth`). */
const COOKIE_PATH = '/api';

/**
 * The refresh token also travels as an HttpOnly cookie (for web clients), with a readable CSRF
 * cookie for the double-submit check; the CSRF token is also given in the X-CSRF-Token header.
 */
export function setSessionCookies(res: Response, session: IssuedSession, secure: boolean): void {
  // rememberMe false: a browser-session cookie (no Max-Age); otherwise it lives as long as the token
  const maxAge = session.persistent ? POLICY.refreshTtlMs : undefined;
  const base = { secure, sameSite: 'strict' as const, path: COOKIE_PATH, ...(maxAge && { maxAge }) };
  const csrf = randomToken();
  res.cookie(REFRESH_COOKIE, session.refreshToken, { ...base, httpOnly: true });
  res.cookie(CSRF_COOKIE, csrf, { ...base, httpOnly: false });
  res.set('X-CSRF-Token', csrf);
}

export function clearSessionCookies(res: Response, secure: boolean): void {
  const base = { secure, sameSite: 'strict' as const, path: COOKIE_PATH };
  res.clearCookie(REFRESH_COOKIE, { ...base, httpOnly: true });
  res.clearCookie(CSRF_COOKIE, base);
}

const cookies = (req: Request) => (req.cookies ?? {}) as Record<string, unknown>;

/**
 * The refresh token of the cookie, if any. A cookie is sent by the browser on its own, so using it
 * requires the double-submit CSRF token: header X-CSRF-Token equal to the lingua_csrf cookie.
 * Clients that send the token themselves (bearer header or body) are not affected.
 */
export function refreshTokenFromCookie(req: Request): string | undefined {
  const token = cookies(req)[REFRESH_COOKIE];
  if (typeof token !== 'string' || token === '') return undefined;
  const expected = cookies(req)[CSRF_COOKIE];
  const sent = req.get(CSRF_HEADER);
  if (typeof expected !== 'string' || !sent || !safeEqual(sent, expected))
    throw new AppError('FORBIDDEN', 'CSRF token missing or invalid', { details: { header: 'X-CSRF-Token' } });
  return token;
}
