import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import {
  type AccessClaims,
  type AccessTokens,
  bearerToken,
  type BlacklistMirror,
  rememberedVerifier,
} from '@lingua/auth';
import { AppError, isAppError } from '@lingua/errors';
import { type AccessPolicy, accessPolicyFor } from '../domain/access-policy';
import { hashApiKey, isUsable, scopeAllows } from '../domain/api-keys';
import { type Caller, isPremium } from '../domain/caller';
import { bucketFor } from '../domain/rate-plans';
import type { ApiKeyStore } from '../data-access/api-key-store';
import { serviceFor } from '../routes';
import { type RateLimiters, type RateState, setRateHeaders, tooManyRequests } from './rate-limit';

/** Headers through which the gateway tells services who called; whatever a client sends in them is dropped. */
export const IDENTITY_HEADERS = {
  userId: 'x-user-id',
  role: 'x-user-role',
  subscriptionStatus: 'x-user-subscription-status',
  apiKeyId: 'x-api-key-id',
  apiKeyScopes: 'x-api-key-scopes',
} as const;

function stripIdentityHeaders(headers: IncomingHttpHeaders) {
  for (const name in headers)
    if (name.startsWith('x-user-') || name.startsWith('x-api-key-') || name === 'x-authenticated-user')
      delete headers[name];
}

/** Anything but our own errors (Redis down while checking the blacklist...) is an outage, never a pass. */
export const asOutage = (err: unknown) =>
  isAppError(err)
    ? err
    : new AppError('SERVICE_UNAVAILABLE', 'Authentication is temporarily unavailable', { cause: err });

/** What admission needs to know about a request, from express or from the fast path (node:http). */
export interface AdmissionRequest {
  req: IncomingMessage;
  /** The path without the query string (express's req.path). */
  path: string;
  /** The client address, as express's req.ip computes it with `trust proxy` loopback. */
  ip: string;
  res: ServerResponse;
  /** Where the outcome goes (express's res.locals): policy, caller, user, accessToken, rateLimit. */
  locals: Record<string, unknown>;
}

export interface EdgeAuthDeps {
  tokens: AccessTokens;
  /** Revoked tokens, answered from memory while the mirror is live. */
  blacklist: Pick<BlacklistMirror, 'hasFingerprint'>;
  apiKeys: ApiKeyStore;
  limiters: RateLimiters;
  maintenance: boolean;
}

/**
 * Admission at the edge, by the spec's Auth column (domain/access-policy.ts):
 * 1. who calls: a bearer access token (HS256, exact claims, expiry; @lingua/auth), an API key
 *    (X-API-Key + X-Client-ID), or a guest where the operation allows one;
 * 2. the token blacklist (in memory: @lingua/auth's mirror), the sign-in budget per IP and the caller's
 *    hourly budget (leased points, else one Redis round trip for both);
 * 3. in that order: 401 (revoked), 403 (role gates), 429 (budget spent).
 * Then the verified identity goes to the services as X-User-* headers (they still verify the token).
 */
export function createAdmission(deps: EdgeAuthDeps): (a: AdmissionRequest) => Promise<void> {
  const verify = rememberedVerifier(deps.tokens);

  async function apiKeyCaller(req: IncomingMessage, path: string, key: string): Promise<Caller> {
    const record = await deps.apiKeys.findByHash(hashApiKey(key));
    if (!record || !isUsable(record, new Date()) || record.client_id !== req.headers['x-client-id'])
      throw new AppError('TOKEN_INVALID', 'API key or client id is invalid');
    const service = serviceFor(path);
    if (service && !scopeAllows(record.scopes, service, req.method ?? 'GET'))
      throw new AppError('FORBIDDEN', 'The API key has no scope for this operation');
    delete req.headers['x-api-key']; // the secret stops at the edge
    req.headers[IDENTITY_HEADERS.apiKeyId] = record.key_id;
    req.headers[IDENTITY_HEADERS.apiKeyScopes] = record.scopes.join(' ');
    return { kind: 'apiKey', keyId: record.key_id, clientId: record.client_id, scopes: record.scopes };
  }

  function gate(policy: AccessPolicy, caller: Caller) {
    if (!policy.gate) return;
    if (caller.kind !== 'user') throw new AppError('FORBIDDEN', 'This path needs a user token');
    if (policy.gate === 'admin' && caller.claims.role !== 'admin')
      throw new AppError('FORBIDDEN', 'Administrator role required');
    if (policy.gate === 'subscriber' && !isPremium(caller.claims))
      throw new AppError('SUBSCRIPTION_REQUIRED', 'This feature needs a subscription');
  }

  return async function admit({ req, path, ip, res, locals }: AdmissionRequest): Promise<void> {
    stripIdentityHeaders(req.headers);
    const method = req.method ?? 'GET';
    const policy = accessPolicyFor(method, path);
    locals.policy = policy;
    if (deps.maintenance && policy.family !== 'none' && path !== '/api/v1/status')
      throw new AppError('SERVICE_UNAVAILABLE', 'The API is in maintenance', {
        headers: { 'Retry-After': '300' },
      });

    let caller: Caller = { kind: 'anonymous', ip };
    let token: string | undefined;
    let fingerprint: string | undefined;
    const apiKey = req.headers['x-api-key'];
    const checksToken = policy.auth === 'access' || policy.auth === 'optional';
    if (checksToken && typeof apiKey === 'string' && !req.headers.authorization)
      caller = await apiKeyCaller(req, path, apiKey);
    else if (checksToken) {
      token = bearerToken(req as Request); // throws TOKEN_INVALID for a header that is not "Bearer <token>"
      if (token) {
        const verified = verify(token);
        caller = { kind: 'user', claims: verified.claims };
        fingerprint = verified.fingerprint;
      } else if (policy.auth === 'access') throw new AppError('UNAUTHORIZED', 'Authentication required');
    }

    // one round trip: node-redis pipelines commands issued in the same tick
    const bucket = bucketFor(policy.family, caller);
    const [revoked, login, budget] = await Promise.all([
      fingerprint ? deps.blacklist.hasFingerprint(fingerprint) : false,
      policy.login ? deps.limiters.consume('login', `ip:${ip}`) : undefined,
      bucket ? deps.limiters.consume(bucket.bucket, bucket.key) : undefined,
    ]);
    if (revoked) throw new AppError('TOKEN_BLACKLISTED', 'Token has been revoked');
    gate(policy, caller);
    if (login?.exceeded) throw tooManyRequests(setRateHeaders(res, login, 60), 'Too many sign-in attempts');
    if (budget) {
      const reset = setRateHeaders(res, budget, 3600);
      if (budget.exceeded) throw tooManyRequests(reset, 'Rate limit exceeded');
      locals.rateLimit = budget satisfies RateState;
    }

    if (caller.kind === 'user') {
      const claims: AccessClaims = caller.claims;
      locals.user = claims; // as @lingua/auth's authenticate() leaves it (currentUser())
      locals.accessToken = token;
      req.headers[IDENTITY_HEADERS.userId] = claims.sub;
      req.headers[IDENTITY_HEADERS.role] = claims.role;
      req.headers[IDENTITY_HEADERS.subscriptionStatus] = claims.subscription_status;
    }
    locals.caller = caller;
  };
}

/** The express face of admission (requests that do not take the fast path). */
export function edgeAuth(deps: EdgeAuthDeps): RequestHandler {
  const admit = createAdmission(deps);
  return (req, res, next) => {
    admit({ req, path: req.path, ip: req.ip ?? 'unknown', res, locals: res.locals }).then(
      () => next(),
      (err: unknown) => next(asOutage(err)),
    );
  };
}
