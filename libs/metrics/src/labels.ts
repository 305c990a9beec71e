/**
 * Label values kept to small, fixed sets, so no request can add a time series: a method outside the
 * HTTP verbs is OTHER, a status becomes its class.
 */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const methodLabel = (method: string | undefined): string =>
  method !== undefined && METHODS.has(method) ? method : 'OTHER';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/** '2xx' for 200..299; anything outside 100..599 is 'other'. */
export const statusClass = (status: number): string => CLASSES[Math.floor(status / 100) - 1] ?? 'other';

/**
 * gRPC status codes by number, as the `grpc_code` label (names as in grpc-go's and
 * go-grpc-prometheus's series, so shared dashboards work).
 */
export const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

export const grpcCodeLabel = (code: number | undefined): string => GRPC_CODE_NAMES[code ?? 2] ?? 'Unknown';
