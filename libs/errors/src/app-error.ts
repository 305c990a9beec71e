import { type ErrorCode, ERROR_CATALOGUE, httpStatusOf } from './error-codes';

export interface AppErrorOptions {
  /** Machine-readable details shown to the client (field errors, attempt counts, ...). */
  details?: Record<string, unknown>;
  /** Overrides the code's usual HTTP status where the spec asks for another (e.g. 422, 200 for duplicates). */
  status?: number;
  cause?: unknown;
  /** Response headers the error implies (Retry-After, ...). */
  headers?: Record<string, string>;
}

/** The one error type of the system: a stable code, a safe message, and optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? httpStatusOf(code);
    this.details = options.details;
    this.headers = options.headers;
  }

  /** 5xx errors are ours; their message is not shown to clients. */
  get isServerError(): boolean {
    return this.status >= 500;
  }
}

export function isAppError(err: unknown): err is AppError {
  return (
    err instanceof AppError ||
    (err instanceof Error && err.name === 'AppError' && (err as AppError).code in ERROR_CATALOGUE)
  );
}

/**
 * True when the work was given up (its deadline passed, its caller left): a fallback must not run
 * then, the error goes up as it is.
 */
export function isAbandonment(err: unknown): boolean {
  return isAppError(err) && (err.code === 'DEADLINE_EXCEEDED' || err.code === 'REQUEST_ABANDONED');
}
