import { AsyncLocalStorage } from 'node:async_hooks';

/** Ids that follow one unit of work (HTTP request, gRPC call, event) through every log line. */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  userId?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return requestContext.run(ctx, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return requestContext.getStore();
}
