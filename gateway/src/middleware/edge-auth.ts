import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import {
  type AccessClaims,
  type AccessTokens,
  ASSERTION_HEADER,
  type AssertionSigner,
  bearerToken,
  type BlacklistMirror,
  rememberedVerifier,
} from '@lingua/auth';
import { AppError, isAppError } from '@lingua/errors';
import { authFailures, rateLimited } from '@lingua/metrics';
import { type AccessPolicy, accessPolicyFor } from '../domain/access-policy';
import { hashApiKey, isUsable, scopeAllows } from '../domain/api-keys';
import { type Caller, isPremium } from '../domain/caller';
import type { AddressBudget } from '../domain/access-policy';
import { addressKey, type BucketName, bucketFor } from '../domain/rate-plans';
import type { ApiKeyStore } from '../domain/api-keys';
import { serviceFor } from '../routes';
import {
  type RateDecision,
  type RateLimiters,
  type RateState,
  setRateHeaders,
  tooManyRequests,
} from './rate-limit';

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
    if (
      name.startsWith('x-user-') ||
      name.startsWith('x-api-key-') ||
      name === 'x-authenticated-user' ||
      name === ASSERTION_HEADER
    )
      delete headers[name];
}

const ADDRESS_BUDGET_MESSAGES: Record<AddressBudget, string> = {
  login: 'Too many sign-in attempts',
  signup: 'Too many accounts created from this address',
  recovery: 'Too many account e-mail requests from this address',
  store: 'Too many store notifications from this address',
};

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
  /** Signs the verified caller for the one service a request goes to (@lingua/auth internal-assertion). */
  assertions: AssertionSigner;
  /** Revoked tokens, answered from memory while the mirror is live. */
  blacklist: Pick<BlacklistMirror, 'isRevoked' | 'revokedNow'>;
  apiKeys: ApiKeyStore;
  limiters: RateLimiters;
  maintenance: boolean;
}

/**
 * Admission: undefined when it finished at once (memory answered everything), a promise when it
 * waits on Redis (an API key look-up, a new lease, the blacklist while the mirror is not live).
 * A refusal is thrown, or rejects the promise.
 */
export type Admit = (a: AdmissionRequest) => Promise<void> | undefined;

/** Who calls and what the operation asks, known before any shared state is consulted. */
interface Identified {
  policy: AccessPolicy;
  caller: Caller;
  token?: string;
  /** The token's jti: what the blacklist keys on. */
  jti?: string;
  /** The token's user: the blacklist also revokes all of a user's tokens at once (a deleted account). */
  sub?: string;
}

/**
 * Admission at the edge, by the spec's Auth column (domain/access-policy.ts):
 * 1. who calls: a bearer access token (HS256, exact claims, expiry; @lingua/auth), an API key
 *    (X-API-Key + X-Client-ID), or a guest where the operation allows one;
 * 2. the token blacklist (in memory: @lingua/auth's mirror), the sign-in budget per IP and the caller's
 *    hourly budget (leased points, else one Redis round trip for all that memory could not answer);
 * 3. in that order: 401 (revoked), 403 (role gates), 429 (budget spent).
 * Then the verified identity goes to the service as an internal assertion signed with that service's
 * key (services hold no key that verifies client tokens), plus informative X-User-* headers.
 * The common case (a known token, a live mirror, a lease with points left) completes without a
 * promise: at thousands of requests per second, each promise and microtask is visible.
 */
export function createAdmission(deps: EdgeAuthDeps): Admit {
  const verify = rememberedVerifier(deps.tokens);

  async function apiKeyCaller(req: IncomingMessage, path: string, key: string): Promise<Caller> {
    const record = await deps.apiKeys.findByHash(hashApiKey(key));
    if (!record || !isUsable(record, new Date()) || record.client_id !== req.headers['x-client-id'])
      throw new AppError('TOKEN_INVALID', 'API key or client id is invalid');
    if (!scopeAllows(record.scopes, serviceFor(path), req.method ?? 'GET', path))
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

  function identify({ req, path, ip, locals }: AdmissionRequest): Identified | Promise<Identified> {
    stripIdentityHeaders(req.headers);
    const policy = accessPolicyFor(req.method ?? 'GET', path);
    locals.policy = policy;
    if (deps.maintenance && policy.family !== 'none' && path !== '/api/v1/status')
      throw new AppError('SERVICE_UNAVAILABLE', 'The API is in maintenance', {
        headers: { 'Retry-After': '300' },
      });
    const apiKey = req.headers['x-api-key'];
    const checksToken = policy.auth === 'access' || policy.auth === 'optional';
    if (checksToken && typeof apiKey === 'string' && !req.headers.authorization)
      return apiKeyCaller(req, path, apiKey).then((caller) => ({ policy, caller }));
    if (checksToken) {
      const token = bearerToken(req as Request); // throws TOKEN_INVALID for a header that is not "Bearer <token>"
      if (token) {
        const verified = verify(token);
        return {
          policy,
          caller: { kind: 'user', claims: verified.claims },
          token,
          jti: verified.claims.jti,
          sub: verified.claims.sub,
        };
      }
      if (policy.auth === 'access') throw new AppError('UNAUTHORIZED', 'Authentication required');
    }
    return { policy, caller: { kind: 'anonymous', ip } };
  }

  function conclude(
    { req, res, locals, path }: AdmissionRequest,
    { policy, caller, token }: Identified,
    revoked: boolean,
    address: RateDecision | undefined,
    budget: RateDecision | undefined,
    bucket?: { bucket: BucketName },
  ) {
    if (revoked) throw new AppError('TOKEN_BLACKLISTED', 'Token has been revoked');
    gate(policy, caller);
    if (address?.exceeded && policy.budget) {
      rateLimited.inc({ plan: policy.budget });
      throw tooManyRequests(
        setRateHeaders(res, address, deps.limiters.windowSeconds(policy.budget)),
        ADDRESS_BUDGET_MESSAGES[policy.budget],
      );
    }
    if (budget) {
      const reset = setRateHeaders(res, budget, 3600);
      if (budget.exceeded) {
        rateLimited.inc({ plan: bucket?.bucket ?? 'unknown' });
        throw tooManyRequests(reset, 'Rate limit exceeded');
      }
      locals.rateLimit = budget satisfies RateState;
    }
    if (caller.kind === 'user') {
      const claims: AccessClaims = caller.claims;
      locals.user = claims; // as @lingua/auth's authenticate() leaves it (currentUser())
      locals.accessToken = token;
      req.headers[IDENTITY_HEADERS.userId] = claims.sub;
      req.headers[IDENTITY_HEADERS.role] = claims.role;
      req.headers[IDENTITY_HEADERS.subscriptionStatus] = claims.subscription_status;
      const service = serviceFor(path);
      if (service) req.headers[ASSERTION_HEADER] = deps.assertions.sign(service, claims);
    }
    locals.caller = caller;
  }

  /** Blacklist and budgets: from memory where it can answer, else one Redis round trip for the rest. */
  function check(a: AdmissionRequest, known: Identified): Promise<void> | undefined {
    const { policy, caller, jti, sub } = known;
    const bucket = bucketFor(policy.family, caller);
    const byAddress = policy.budget;
    const key = addressKey(a.ip);
    const revoked = jti ? deps.blacklist.revokedNow(jti, sub) : false;
    const address = byAddress ? deps.limiters.consumeLocally(byAddress, key) : undefined;
    const budget = bucket ? deps.limiters.consumeLocally(bucket.bucket, bucket.key) : undefined;
    if (revoked !== undefined && (address || !byAddress) && (budget || !bucket))
      return void conclude(a, known, revoked, address, budget, bucket);
    // node-redis pipelines commands issued in the same tick
    return Promise.all([
      revoked ?? deps.blacklist.isRevoked(jti!, sub),
      address ?? (byAddress ? deps.limiters.consume(byAddress, key) : undefined),
      budget ?? (bucket ? deps.limiters.consume(bucket.bucket, bucket.key) : undefined),
    ]).then(([r, l, b]) => conclude(a, known, r, l, b, bucket));
  }

  return (a) => {
    const known = identify(a);
    return known instanceof Promise ? known.then((k) => check(a, k)) : check(a, known);
  };
}

/**
 * Runs admission and then exactly one of `admitted` or `refused` (with an outage for anything but
 * our own errors): at once when memory answered, after Redis otherwise.
 */
export function admitThen(
  admit: Admit,
  a: AdmissionRequest,
  admitted: () => void,
  refused: (err: unknown) => void,
): void {
  const refuse = (err: unknown) => {
    const outage = asOutage(err);
    // 401 and 403 refusals by code; 429s are counted by plan where the budget is checked
    if (outage.status === 401 || outage.status === 403) authFailures.inc({ code: outage.code });
    refused(outage);
  };
  let pending: Promise<void> | undefined;
  try {
    pending = admit(a);
  } catch (err) {
    return refuse(err);
  }
  if (pending) pending.then(admitted, (err: unknown) => refuse(err));
  else admitted();
}

/** The express face of admission (requests that do not take the fast path). */
export function edgeAuth(deps: EdgeAuthDeps): RequestHandler {
  const admit = createAdmission(deps);
  return (req, res, next) =>
    admitThen(admit, { req, path: req.path, ip: req.ip ?? 'unknown', res, locals: res.locals }, next, next);
}
