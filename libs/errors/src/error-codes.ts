/**
 * The stable error codes of the system. DO NOT RENAME: clients match on these strings.
 * Each code has one HTTP status, one Group C catalogue code (AUTH001…SRV002) and one gRPC status,
 * so every transport maps errors the same way.
 */
export const ERROR_CATALOGUE = {
  // authentication (spec: Authentication codes)
  VALIDATION_ERROR: { http: 400, catalogue: 'VAL001', grpc: 3 },
  INVALID_INPUT: { http: 400, catalogue: 'VAL002', grpc: 3 },
  INVALID_CREDENTIALS: { http: 401, catalogue: 'AUTH003', grpc: 16 },
  UNAUTHORIZED: { http: 401, catalogue: 'AUTH003', grpc: 16 },
  TOKEN_INVALID: { http: 401, catalogue: 'AUTH001', grpc: 16 },
  TOKEN_EXPIRED: { http: 401, catalogue: 'AUTH002', grpc: 16 },
  TOKEN_BLACKLISTED: { http: 401, catalogue: 'AUTH001', grpc: 16 },
  ACCOUNT_LOCKED: { http: 423, catalogue: 'AUTH003', grpc: 9 },
  EMAIL_EXISTS: { http: 409, catalogue: 'RES002', grpc: 6 },
  USERNAME_EXISTS: { http: 409, catalogue: 'RES002', grpc: 6 },
  SOCIAL_LOGIN_ERROR: { http: 400, catalogue: 'AUTH003', grpc: 16 },
  EMAIL_NOT_VERIFIED: { http: 403, catalogue: 'EMAIL_NOT_VERIFIED', grpc: 9 },
  FORBIDDEN: { http: 403, catalogue: 'AUTH003', grpc: 7 },
  SUBSCRIPTION_REQUIRED: { http: 403, catalogue: 'AUTH003', grpc: 7 },
  // subscriptions (spec: Subscription codes)
  SUBSCRIPTION_NOT_FOUND: { http: 404, catalogue: 'RES001', grpc: 5 },
  SUBSCRIPTION_EXPIRED: { http: 403, catalogue: 'AUTH003', grpc: 9 },
  SUBSCRIPTION_CANCELLED: { http: 403, catalogue: 'AUTH003', grpc: 9 },
  RECEIPT_VERIFICATION_FAILED: { http: 400, catalogue: 'VAL002', grpc: 3 },
  RECEIPT_INVALID: { http: 400, catalogue: 'VAL002', grpc: 3 },
  SUBSCRIPTION_ALREADY_ACTIVE: { http: 409, catalogue: 'RES002', grpc: 6 },
  PLATFORM_VERIFICATION_ERROR: { http: 502, catalogue: 'SRV002', grpc: 14 },
  REFUND_PROCESSING_ERROR: { http: 400, catalogue: 'VAL002', grpc: 9 },
  // generic resource, rate and server codes
  NOT_FOUND: { http: 404, catalogue: 'RES001', grpc: 5 },
  CONFLICT: { http: 409, catalogue: 'RES002', grpc: 6 },
  // Idempotency-Key (gateway): the first request with this key is still running; retry after Retry-After
  IDEMPOTENCY_IN_PROGRESS: { http: 409, catalogue: 'RES002', grpc: 10 },
  // Idempotency-Key (gateway): the key was used with another body for this operation
  IDEMPOTENCY_KEY_REUSED: { http: 422, catalogue: 'VAL002', grpc: 3 },
  PAYLOAD_TOO_LARGE: { http: 413, catalogue: 'VAL002', grpc: 8 },
  RATE_LIMITED: { http: 429, catalogue: 'RATE001', grpc: 8 },
  QUOTA_EXCEEDED: { http: 429, catalogue: 'RATE002', grpc: 8 },
  INTERNAL_ERROR: { http: 500, catalogue: 'SRV001', grpc: 13 },
  SERVICE_UNAVAILABLE: { http: 503, catalogue: 'SRV002', grpc: 14 },
  UPSTREAM_TIMEOUT: { http: 504, catalogue: 'SRV002', grpc: 4 },
  // the request's deadline passed (set by the gateway per route class): its work was stopped
  DEADLINE_EXCEEDED: { http: 504, catalogue: 'SRV002', grpc: 4 },
  // the caller went away (closed the connection, cancelled the call): nobody reads this answer
  REQUEST_ABANDONED: { http: 499, catalogue: 'SRV002', grpc: 1 },
  // an outside AI provider failed (errors after retries, malformed model output)
  AI_PROVIDER_ERROR: { http: 502, catalogue: 'SRV002', grpc: 14 },
} as const satisfies Record<string, { http: number; catalogue: string; grpc: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type CatalogueCode = (typeof ERROR_CATALOGUE)[ErrorCode]['catalogue'];

export const httpStatusOf = (code: ErrorCode): number => ERROR_CATALOGUE[code].http;
export const catalogueCodeOf = (code: ErrorCode): CatalogueCode => ERROR_CATALOGUE[code].catalogue;
export const grpcStatusOf = (code: ErrorCode): number => ERROR_CATALOGUE[code].grpc;

const GRPC_FALLBACK: Record<number, ErrorCode> = {
  3: 'INVALID_INPUT',
  4: 'UPSTREAM_TIMEOUT',
  5: 'NOT_FOUND',
  6: 'CONFLICT',
  7: 'FORBIDDEN',
  8: 'RATE_LIMITED',
  14: 'SERVICE_UNAVAILABLE',
  16: 'UNAUTHORIZED',
};

/** For a gRPC failure without our code in its metadata (e.g. a deadline hit in the client). */
export function errorCodeFromGrpcStatus(status: number): ErrorCode {
  return GRPC_FALLBACK[status] ?? 'INTERNAL_ERROR';
}
