import type { ErrorCode } from './error-codes';

/**
 * What each code means to a client, one line each: the error catalogue of the API guide
 * (docs/api/README.md) is generated from this and ERROR_CATALOGUE, and a test keeps them in step.
 */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'the input failed validation; `details` maps each field to its messages',
  INVALID_INPUT:
    'the input is well formed but unusable (a bad, expired or used one-time token, a malformed upload)',
  INVALID_CREDENTIALS: 'wrong e-mail or password; `details` carries the attempt count and any lockout',
  UNAUTHORIZED: 'no token (or API key) where one is required',
  TOKEN_INVALID: 'the token is malformed, wrongly signed or unknown (also an API key without its client id)',
  TOKEN_EXPIRED: 'the token has expired: refresh (access token) or sign in again (refresh token)',
  TOKEN_BLACKLISTED: 'the token was revoked (logout, refresh-token reuse, password reset)',
  ACCOUNT_LOCKED:
    'sign-in locked after 5 failed attempts, for 15 minutes (`details.lockoutTime`, `Retry-After`)',
  EMAIL_EXISTS: 'the e-mail address is already registered',
  USERNAME_EXISTS: 'the username is taken (case-insensitively)',
  SOCIAL_LOGIN_ERROR: 'the Apple or Google token could not be verified',
  EMAIL_NOT_VERIFIED: 'sign-in needs a verified e-mail address first',
  FORBIDDEN: 'authenticated, but this caller may not do this (role, API key scope, a failed CSRF check)',
  SUBSCRIPTION_REQUIRED: 'the feature needs a subscription (premium role or an active or trial subscription)',
  SUBSCRIPTION_NOT_FOUND: 'no subscription record',
  SUBSCRIPTION_EXPIRED:
    'the subscription expired; `details` has the expiry, grace period and renewal options',
  SUBSCRIPTION_CANCELLED: 'the subscription was cancelled',
  RECEIPT_VERIFICATION_FAILED: 'the store did not confirm the receipt',
  RECEIPT_INVALID: 'the receipt is malformed or not for this app',
  SUBSCRIPTION_ALREADY_ACTIVE: 'a subscription is already active',
  PLATFORM_VERIFICATION_ERROR: 'the store verification service failed; retry later',
  REFUND_PROCESSING_ERROR: 'the refund could not be processed',
  NOT_FOUND: "no such resource (another user's resource is also not found)",
  CONFLICT:
    'the request conflicts with the current state (duplicate, limit of a collection, concurrent change)',
  IDEMPOTENCY_IN_PROGRESS:
    'a request with this Idempotency-Key is still being processed; retry after `Retry-After` seconds',
  IDEMPOTENCY_KEY_REUSED:
    'this Idempotency-Key was already used for this operation with a different body; use a new key',
  PAYLOAD_TOO_LARGE: 'the body or upload is over its size limit',
  RATE_LIMITED: 'the request budget is spent; wait for `Retry-After` seconds',
  QUOTA_EXCEEDED: 'a daily or windowed quota (AI generation, look-ups, exports) is spent',
  INTERNAL_ERROR: 'an unexpected server error; the message is generic, quote the request id',
  SERVICE_UNAVAILABLE:
    'a dependency is down, the server is overloaded or in maintenance; retry after `Retry-After`',
  UPSTREAM_TIMEOUT: 'a service behind the gateway did not answer in time',
  DEADLINE_EXCEEDED: "the request's time budget passed and its work was stopped; retry after `Retry-After`",
  REQUEST_ABANDONED: 'the client went away before the answer (logged, never read by a client)',
  AI_PROVIDER_ERROR: 'the AI provider failed after retries, or answered something unusable',
};
