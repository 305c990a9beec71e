import type { RequestHandler, Request, Response } from 'express';
import { AppError } from '@lingua/errors';
import type { AccessClaims } from './access-tokens';
import { ASSERTION_HEADER, type AssertionVerifier } from './internal-assertion';
import type { TokenBlacklist } from './token-blacklist';

export interface AuthenticateOptions {
  /** This service's verifier of the gateway's internal assertions (its own key and audience). */
  assertions: AssertionVerifier;
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
 * Who calls a service: the gateway's internal assertion for this service (internal-assertion.ts),
 * never a client token, then the blacklist by the token's jti; the claims go on `res.locals.user`.
 * A client token that reached a service without the gateway is refused: a service holds no key
 * that could verify one, and never trusts the network.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  return async (req, res, next) => {
    try {
      const assertion = req.headers[ASSERTION_HEADER];
      if (typeof assertion !== 'string') {
        if (req.headers.authorization !== undefined)
          throw new AppError('UNAUTHORIZED', 'Call this service through the gateway');
        if (options.optional) return next();
        throw new AppError('UNAUTHORIZED', 'Authentication required');
      }
      const claims = options.assertions.verify(assertion);
      if (options.blacklist && (await options.blacklist.isRevoked(claims.jti, claims.sub)))
        throw new AppError('TOKEN_BLACKLISTED', 'Token has been revoked');
      res.locals.user = claims;
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
