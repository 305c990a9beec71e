import { setTimeout as sleep } from 'node:timers/promises';
import {
  credentials,
  status as GrpcStatus,
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import type { AppError } from '@lingua/errors';
import { budgetMs, currentRequestContext, type Logger } from '@lingua/logger';
import type { CallSigner } from './call-identity';
import { metadataFromContext } from './call-metadata';
import { fromServiceError, isServiceError } from './grpc-errors';
import type { MethodName, RequestOf, ResponseOutputOf } from './method-types';

/** A generated service constructor, e.g. `loadPackage().lingua.identity.v1.IdentityService`. */
export interface ServiceConstructor<D extends ServiceDefinition> {
  new (address: string, credentials: ChannelCredentials, options?: ClientOptions): Client;
  service: D;
}

export interface GrpcClientOptions<D extends ServiceDefinition> {
  /**
   * Signs every call as this service (call-identity.ts); Lingua servers refuse unsigned calls. Only
   * the standard health service, which probes call, needs none.
   */
  signer?: CallSigner;
  /** Deadline of a call that names none; no call ever goes without one. */
  defaultDeadlineMs?: number;
  /** Methods safe to repeat (reads). Only these are retried, only on UNAVAILABLE, within the deadline. */
  idempotentMethods?: readonly MethodName<D>[];
  logger?: Logger;
}

export interface GrpcCallOptions {
  deadlineMs?: number;
}

export interface GrpcClient<D extends ServiceDefinition> {
  /** Calls one RPC; rejects with AppError (the callee's code, or UPSTREAM_TIMEOUT / SERVICE_UNAVAILABLE / ...). */
  call<M extends MethodName<D>>(
    method: M,
    request: RequestOf<D[M]>,
    options?: GrpcCallOptions,
  ): Promise<ResponseOutputOf<D[M]>>;
  /** The same call bound to one method, e.g. `const getUser = client.unary('GetUser')`. */
  unary<M extends MethodName<D>>(
    method: M,
  ): (request: RequestOf<D[M]>, options?: GrpcCallOptions) => Promise<ResponseOutputOf<D[M]>>;
  close(): void;
}

const MAX_RETRIES = 2;
const BASE_BACKOFF_MS = 25;

/**
 * A promise-based client for one service. Every call carries a deadline and the current request
 * context; failures come back as AppError, so callers handle gRPC and local errors alike.
 */
export function createGrpcClient<D extends ServiceDefinition>(
  ServiceCtor: ServiceConstructor<D>,
  address: string,
  options: GrpcClientOptions<D>,
): GrpcClient<D> {
  const client = new ServiceCtor(address, credentials.createInsecure());
  const defaultDeadlineMs = options.defaultDeadlineMs ?? 2000;
  const idempotent = new Set<string>(options.idempotentMethods ?? []);
  const serviceName = Object.values(ServiceCtor.service)[0]?.path.split('/')[1] ?? 'grpc';
  // the server's name is its proto package's ('lingua.flashcards.v1.…' is served by flashcards), so
  // an assertion is addressed to the server that serves the service and no other
  const audience = /^lingua\.([a-z]+)\.v\d+\./.exec(serviceName)?.[1];
  if (options.signer && audience === undefined)
    throw new TypeError(`${serviceName}: not a Lingua service, no audience for a call assertion`);
  const assertion = () => (options.signer && audience ? options.signer.assertionFor(audience) : undefined);

  function once(
    method: ServiceDefinition[string],
    request: unknown,
    deadline: Date,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const cancel = () => unary.cancel();
      const unary = client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadataFromContext(assertion()),
        { deadline },
        (err, response) => {
          signal?.removeEventListener('abort', cancel);
          if (err) reject(err);
          else resolve(response);
        },
      );
      // the request this call serves was abandoned: the callee stops too (it sees CANCELLED)
      signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  async function call(name: string, request: unknown, callOptions: GrpcCallOptions = {}): Promise<unknown> {
    const method = ServiceCtor.service[name];
    if (method === undefined || method.requestStream || method.responseStream)
      throw new TypeError(`${serviceName}/${name} is not a unary method of this service`);
    const target = `${serviceName}/${name}`;
    // never longer than what is left of the request this call serves
    const deadline = new Date(Date.now() + budgetMs(callOptions.deadlineMs ?? defaultDeadlineMs));
    const signal = currentRequestContext()?.signal;
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(method, request, deadline, signal);
      } catch (err) {
        if (!isServiceError(err)) throw err;
        const backoffMs = BASE_BACKOFF_MS * 2 ** attempt * (1 + Math.random());
        // A retry must be safe (idempotent), useful (the server was unreachable or shedding load, not
        // slow: a deadline means the budget is spent) and fit in what is left of the deadline.
        const retry =
          idempotent.has(name) &&
          err.code === GrpcStatus.UNAVAILABLE &&
          attempt < MAX_RETRIES &&
          Date.now() + backoffMs < deadline.getTime();
        if (!retry) throw failure(err, target);
        options.logger?.warn({ target, attempt: attempt + 1, reason: err.details }, 'retrying gRPC call');
        await sleep(backoffMs);
      }
    }
  }

  function failure(err: ServiceError, target: string): AppError {
    const appError = fromServiceError(err, target);
    options.logger?.debug({ target, code: appError.code, grpc_status: err.code }, 'gRPC call failed');
    return appError;
  }

  const typedCall = call as GrpcClient<D>['call'];
  return {
    call: typedCall,
    unary: (method) => (request, callOptions) => typedCall(method, request, callOptions),
    close: () => client.close(),
  };
}
