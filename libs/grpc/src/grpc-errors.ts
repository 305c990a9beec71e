import { Metadata, status as GrpcStatus, type ServerErrorResponse, type ServiceError } from '@grpc/grpc-js';
import {
  AppError,
  ERROR_CATALOGUE,
  errorCodeFromGrpcStatus,
  grpcStatusOf,
  isAppError,
  type ErrorCode,
} from '@lingua/errors';
import { ERROR_CODE_KEY, ERROR_DETAILS_KEY, metadataValue } from './call-metadata';

export const INTERNAL_MESSAGE = 'Internal server error';

// Non-binary metadata must be printable ASCII; \u escapes keep the JSON valid and the text intact.
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * Server side: the gRPC status of anything a handler threw. An AppError keeps its code, message and
 * details (in trailers); anything else is a bug of ours and becomes INTERNAL with a generic message.
 */
export function toServiceError(err: unknown): ServerErrorResponse {
  const appError = isAppError(err) ? err : new AppError('INTERNAL_ERROR', INTERNAL_MESSAGE, { cause: err });
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_KEY, appError.code);
  if (appError.details !== undefined) metadata.set(ERROR_DETAILS_KEY, asciiJson(appError.details));
  return Object.assign(new Error(appError.message), {
    code: grpcStatusOf(appError.code),
    details: appError.message,
    metadata,
  });
}

function isErrorCode(value: string | undefined): value is ErrorCode {
  return value !== undefined && Object.hasOwn(ERROR_CATALOGUE, value);
}

function detailsOf(metadata: Metadata | undefined): Record<string, unknown> | undefined {
  const raw = metadata?.get(ERROR_DETAILS_KEY)[0];
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Client side: the AppError for a failed call. A Lingua server names the code in a trailer; otherwise
 * (deadline hit, server down, foreign server) the code is derived from the gRPC status.
 */
export function fromServiceError(err: ServiceError, target: string): AppError {
  const sentCode = metadataValue(err.metadata, ERROR_CODE_KEY);
  const details = detailsOf(err.metadata);
  if (isErrorCode(sentCode))
    return new AppError(sentCode, err.details, { cause: err, ...(details && { details }) });
  const reason = err.details || GrpcStatus[err.code] || `status ${err.code}`;
  return new AppError(errorCodeFromGrpcStatus(err.code), `${target} failed: ${reason}`, { cause: err });
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';
}
