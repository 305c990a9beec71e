import type { RequestHandler, Request, Response } from 'express';
import { AppError } from '@lingua/errors';
import type { AccessClaims, AccessTokens } from './access-tokens';
import type { TokenBlacklist } from './token-blacklist';

export interface AuthenticateOptions {
  tokens: AccessTokens;
  /** Without a blacklist revoked tokens are still accepted until they expire; only tests omit it. */
  blacklist?: TokenBlacklist;
  /** Guests pass through with no user (spec: operations marked optional). A bad token is still a 401. */
  optional?: boolean;
}

/** The bearer token of a request, or undefined when the header is absent. */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('TOKEN_INVALID', 'Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * Verifies the access token (HS256, exact claims, expiry) and the blacklist, then puts the claims on
 * `res.locals.user`. Every service uses this even behind the gateway: a service never trusts the network.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  return async (req, res, next) => {
    try {
      const token = bearerToken(req);
      if (!token) {
        if (options.optional) return next();
        throw new AppError('UNAUTHORIZED', 'Authentication required');
      }
      const claims = options.tokens.verify(token);
      if (options.blacklist && (await options.blacklist.isRevoked(claims.jti)))
        throw new AppError('TOKEN_BLACKLISTED', 'Token has been revoked');
      res.locals.user = claims;
      res.locals.accessToken = token;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The verified caller set by authenticate(); throws 401 if the route forgot to authenticate. */
export function currentUser(res: Response): AccessClaims {
  const user = res.locals.user as AccessClaims | undefined;
  if (!user) throw new AppError('UNAUTHORIZED', 'Authentication required');
  return user;
}

/** The caller if any (guest-friendly routes). */
export function optionalUser(res: Response): AccessClaims | undefined {
  return res.locals.user as AccessClaims | undefined;
}

/** 403 unless the caller has one of the roles. */
export function requireRole(...roles: AccessClaims['role'][]): RequestHandler {
  return (_req, res, next) => {
    const user = res.locals.user as AccessClaims | undefined;
    if (!user) return next(new AppError('UNAUTHORIZED', 'Authentication required'));
    if (!roles.includes(user.role)) return next(new AppError('FORBIDDEN', 'Insufficient role'));
    next();
  };
}
