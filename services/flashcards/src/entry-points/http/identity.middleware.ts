import type { RequestHandler, Response } from 'express';
import { type AssertionVerifier, authenticate, type TokenBlacklist } from '@lingua/auth';
import { AppError } from '@lingua/errors';

const USER_ID = 'flashcardsUserId';

/**
 * Who is calling: the gateway's assertion (@lingua/auth). The token's `sub` is the user id (our access tokens carry the spec's claims plus jti,
 * so the name-identifier alternative never occurs). Anonymous callers are the dev user only where the
 * route allows it and dev mode is on.
 */
export function identityMiddleware(options: {
  assertions: AssertionVerifier;
  blacklist: TokenBlacklist | undefined;
  devUserId: string | undefined;
}) {
  const verify = authenticate({
    assertions: options.assertions,
    ...(options.blacklist && { blacklist: options.blacklist }),
    optional: true,
  });
  const resolve =
    (allowAnonymous: boolean): RequestHandler =>
    (req, res, next) =>
      verify(req, res, (err?: unknown) => {
        if (err) return next(err);
        const sub = (res.locals.user as { sub?: string } | undefined)?.sub;
        if (sub) res.locals[USER_ID] = sub;
        else if (allowAnonymous && options.devUserId) res.locals[USER_ID] = options.devUserId;
        else return next(new AppError('UNAUTHORIZED', 'Authentication required'));
        next();
      });
  return {
    requireUser: resolve(false),
    groupBUser: resolve(true),
    userIdOf(res: Response): string {
      const id = res.locals[USER_ID] as string | undefined;
      if (!id) throw new AppError('UNAUTHORIZED', 'Authentication required');
      return id;
    },
  };
}
