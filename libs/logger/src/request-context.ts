import { AsyncLocalStorage } from 'node:async_hooks';

/** Ids that follow one unit of work (HTTP request, gRPC call, event) through every log line. */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  userId?: string;
  /** The language the caller reads (from Accept-Language, one of the supported ones): messages use it. */
  language?: string;
  /** Epoch ms by which the work must be done: its caller has stopped waiting after that. */
  deadline?: number;
  /** Aborted when the deadline passes or the caller goes away; the reason says which. */
  signal?: AbortSignal;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return requestContext.run(ctx, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return requestContext.getStore();
}

/** Milliseconds left before the current work's deadline (may be ≤ 0); undefined when it has none. */
export function remainingMs(now = Date.now()): number | undefined {
  const deadline = requestContext.getStore()?.deadline;
  return deadline === undefined ? undefined : deadline - now;
}

/** The smaller of a step's own time limit and what is left of the current work's deadline. */
export function budgetMs(ownLimitMs: number): number {
  const left = remainingMs();
  return left === undefined ? ownLimitMs : Math.max(0, Math.min(ownLimitMs, left));
}

/** Throws the abort reason when the current work was abandoned (deadline passed, caller gone). */
export function throwIfAbandoned(): void {
  requestContext.getStore()?.signal?.throwIfAborted();
}
