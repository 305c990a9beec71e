export { createGrpcServer } from './create-grpc-server';
export type { AllowedCallers, GrpcServer, GrpcServerOptions } from './create-grpc-server';
export {
  CALL_ASSERTION_KEY,
  CALL_ASSERTION_LIFETIME_S,
  SERVICE_CALLERS,
  createCallSigner,
  createCallVerifier,
  devCallSigner,
  devSigningKey,
  devTrustedCallers,
  callerKeyEnv,
  generateCallKeys,
  publicKeyFrom,
  publicKeyOf,
  signingKeyFrom,
} from './call-identity';
export type { CallerName, CallSigner, CallVerifier, ServiceCaller, TrustedCallers } from './call-identity';
export { createGrpcClient } from './create-grpc-client';
export type {
  GrpcClient,
  GrpcClientOptions,
  GrpcCallOptions,
  ServiceConstructor,
} from './create-grpc-client';
export { checkGrpcHealth } from './check-grpc-health';
export { reflectServer } from './reflection-client';
export type { ServingStatus } from './health-service';
export {
  REQUEST_ID_KEY,
  CORRELATION_ID_KEY,
  USER_ID_KEY,
  ERROR_CODE_KEY,
  ERROR_DETAILS_KEY,
  currentCaller,
} from './call-metadata';
export type { GrpcRequestContext } from './call-metadata';
export { toServiceError, fromServiceError } from './grpc-errors';
export type {
  MethodName,
  RequestOf,
  RequestOutputOf,
  ResponseOf,
  ResponseOutputOf,
  UnaryHandler,
  UnaryHandlers,
} from './method-types';
