import { AppError, isAbandonment, isAppError } from './app-error';
import { catalogueCodeOf, errorCodeFromGrpcStatus, grpcStatusOf, httpStatusOf } from './error-codes';

describe('AppError', () => {
  it('When created from a code, Then status follows the catalogue unless overridden', () => {
    expect(new AppError('ACCOUNT_LOCKED', 'locked').status).toBe(423);
    expect(new AppError('VALIDATION_ERROR', 'bad', { status: 422 }).status).toBe(422);
    expect(new AppError('PLATFORM_VERIFICATION_ERROR', 'store down').isServerError).toBe(true);
    expect(isAppError(new AppError('NOT_FOUND', 'x'))).toBe(true);
    expect(isAppError(new Error('x'))).toBe(false);
  });

  it.each([
    ['TOKEN_INVALID', 401, 'AUTH001', 16],
    ['TOKEN_EXPIRED', 401, 'AUTH002', 16],
    ['UNAUTHORIZED', 401, 'AUTH003', 16],
    ['VALIDATION_ERROR', 400, 'VAL001', 3],
    ['NOT_FOUND', 404, 'RES001', 5],
    ['CONFLICT', 409, 'RES002', 6],
    ['RATE_LIMITED', 429, 'RATE001', 8],
    ['QUOTA_EXCEEDED', 429, 'RATE002', 8],
    ['INTERNAL_ERROR', 500, 'SRV001', 13],
    ['SERVICE_UNAVAILABLE', 503, 'SRV002', 14],
  ] as const)('When the code is %s, Then HTTP is %i, catalogue %s, gRPC %i', (code, http, cat, grpc) => {
    expect(httpStatusOf(code)).toBe(http);
    expect(catalogueCodeOf(code)).toBe(cat);
    expect(grpcStatusOf(code)).toBe(grpc);
  });

  it('When a gRPC status has no code attached, Then a sensible code is derived', () => {
    expect(errorCodeFromGrpcStatus(4)).toBe('UPSTREAM_TIMEOUT');
    expect(errorCodeFromGrpcStatus(14)).toBe('SERVICE_UNAVAILABLE');
    expect(errorCodeFromGrpcStatus(2)).toBe('INTERNAL_ERROR');
  });
});

describe('isAbandonment', () => {
  it('When the work was given up (deadline, caller gone), Then true; for any other failure, false', () => {
    expect(isAbandonment(new AppError('DEADLINE_EXCEEDED', 'late'))).toBe(true);
    expect(isAbandonment(new AppError('REQUEST_ABANDONED', 'gone'))).toBe(true);
    expect(isAbandonment(new AppError('UPSTREAM_TIMEOUT', 'slow service'))).toBe(false);
    expect(isAbandonment(new Error('redis down'))).toBe(false);
  });
});
