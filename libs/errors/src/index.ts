export { AppError, isAbandonment, isAppError } from './app-error';
export type { AppErrorOptions } from './app-error';
export {
  ERROR_CATALOGUE,
  httpStatusOf,
  catalogueCodeOf,
  grpcStatusOf,
  errorCodeFromGrpcStatus,
} from './error-codes';
export type { ErrorCode, CatalogueCode } from './error-codes';
export { ERROR_MEANINGS } from './error-meanings';
export { parseInput, fieldErrors } from './parse-input';
