import { randomUUID } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { currentRequestContext, type RequestContext } from '@lingua/logger';
import { injectTraceContext } from '@lingua/telemetry';
import { CALL_ASSERTION_KEY, type CallerName } from './call-identity';

// The HTTP header names, so one id follows a request from the gateway through every service.
export const REQUEST_ID_KEY = 'x-request-id';
export const CORRELATION_ID_KEY = 'x-correlation-id';
export const USER_ID_KEY = 'x-user-id';
// Trailers that carry an AppError across the wire, so the caller gets the same code, not just a status.
export const ERROR_CODE_KEY = 'lingua-error-code';
export const ERROR_DETAILS_KEY = 'lingua-error-details';

/** The request context of a gRPC call: the logger's ids plus the calling service, once proven. */
export interface GrpcRequestContext extends RequestContext {
  caller?: CallerName;
}

// Values end up in log lines and must be legal metadata, so only plain tokens of sane length pass.
const SAFE_VALUE = /^[A-Za-z0-9._:@-]{1,128}$/;

/** W3C traceparent / tracestate values. */
export const TRACE_VALUE = /^[A-Za-z0-9._:@=,;/+ -]{1,512}$/;

export function metadataValue(
  metadata: Metadata | undefined,
  key: string,
  pattern: RegExp = SAFE_VALUE,
): string | undefined {
  const value = metadata?.get(key)[0];
  return typeof value === 'string' && pattern.test(value) ? value : undefined;
}

/** Server side: the ids the caller sent, or fresh ones when it sent none (e.g. a grpcurl by hand). */
export function contextFromMetadata(metadata: Metadata): GrpcRequestContext {
  const requestId = metadataValue(metadata, REQUEST_ID_KEY) ?? randomUUID();
  const userId = metadataValue(metadata, USER_ID_KEY);
  return {
    requestId,
    correlationId: metadataValue(metadata, CORRELATION_ID_KEY) ?? requestId,
    ...(userId !== undefined && { userId }),
  };
}

/**
 * Client side: the current unit of work's ids, so the callee logs under the same request, and the
 * caller's assertion (call-identity.ts) when the call goes to a server that checks it.
 */
export function metadataFromContext(
  assertion: string | undefined,
  ctx: RequestContext | undefined = currentRequestContext(),
): Metadata {
  const metadata = new Metadata();
  if (assertion !== undefined) metadata.set(CALL_ASSERTION_KEY, assertion);
  const pairs: [string, string | undefined][] = [
    [REQUEST_ID_KEY, ctx?.requestId],
    [CORRELATION_ID_KEY, ctx?.correlationId],
    [USER_ID_KEY, ctx?.userId],
  ];
  for (const [key, value] of pairs)
    if (value !== undefined && SAFE_VALUE.test(value)) metadata.set(key, value);
  // trace context travels like the ids, so the callee's spans join the caller's trace
  injectTraceContext((key, value) => metadata.set(key, value));
  return metadata;
}

/** The proven caller of the gRPC call being handled. */
export function currentCaller(): CallerName | undefined {
  return (currentRequestContext() as GrpcRequestContext | undefined)?.caller;
}
