import {
  type Metadata,
  Server,
  ServerCredentials,
  type handleUnaryCall,
  type ServiceDefinition,
  type UntypedHandleCall,
} from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { AppError, isAppError } from '@lingua/errors';
import { runWithRequestContext, type Logger } from '@lingua/logger';
import { grpcCodeLabel, grpcDuration, grpcHandled, grpcInFlight, secondsSince } from '@lingua/metrics';
import { loadPackage, loadPackageDefinition } from '@lingua/proto';
import { extractTraceContext, SpanKind, withSpan } from '@lingua/telemetry';
import {
  CALL_ASSERTION_KEY,
  type CallerName,
  createCallVerifier,
  type ServiceCaller,
  type TrustedCallers,
} from './call-identity';
import { contextFromMetadata, type GrpcRequestContext, metadataValue, TRACE_VALUE } from './call-metadata';
import { toServiceError } from './grpc-errors';
import { createHealthService, type ServingStatus } from './health-service';
import type { MethodName, UnaryHandler, UnaryHandlers } from './method-types';

export interface GrpcServerOptions {
  logger: Logger;
  /** The owning service (e.g. 'identity'), for log lines. */
  serviceName: string;
  /**
   * gRPC server reflection (grpc.reflection.v1 and v1alpha): lists the services this server registered
   * (and the health service) with their descriptors, so `grpcurl list` needs no proto files. Default off.
   */
  reflection?: boolean;
  /**
   * Public keys of the callers this server can verify (call-identity.ts). Every call of a service
   * added here must carry a valid assertion addressed to `serviceName` by a caller its method
   * allows; health and reflection stay open to probes.
   */
  callers: TrustedCallers;
}

/**
 * Per RPC, the services that may call it (besides `operator`, allowed everywhere its key is given):
 * only those that call it today. An empty list: no service calls it yet.
 */
export type AllowedCallers<D extends ServiceDefinition> = { [K in MethodName<D>]: readonly ServiceCaller[] };

const ASSERTION_VALUE = /^[A-Za-z0-9._-]{1,1024}$/;

/** The health service's full name, always served. */
const HEALTH_SERVICE = 'grpc.health.v1.Health';

export interface GrpcServer {
  readonly server: Server;
  /**
   * Registers a service with async handlers and, per RPC, the callers allowed; each handler runs in
   * the caller's request context, only for a proven, allowed caller. Call before start().
   */
  addService<D extends ServiceDefinition>(
    definition: D,
    handlers: UnaryHandlers<D>,
    allowed: AllowedCallers<D>,
  ): void;
  /** Health as seen by probes: '' is the whole server, otherwise a full name such as 'lingua.identity.v1.IdentityService'. */
  setServingStatus(service: string, status: ServingStatus): void;
  /** Binds and serves; port 0 picks a free one. Resolves to the bound port. */
  start(port: number, host?: string): Promise<number>;
  /** Reports NOT_SERVING, lets in-flight calls finish (up to graceMs), then drops what is left. */
  stop(graceMs?: number): Promise<void>;
}

/** 'lingua.identity.v1.IdentityService' from a method path '/lingua.identity.v1.IdentityService/GetUser'. */
function fullServiceName(definition: ServiceDefinition): string | undefined {
  const path = Object.values(definition)[0]?.path;
  return path?.split('/')[1];
}

/**
 * A gRPC server whose handlers are plain async functions: they run inside the request context the
 * caller sent (ids in every log line), and what they throw becomes a gRPC status plus our error code,
 * so the calling service gets the same AppError back. The standard health service comes built in,
 * and server reflection when `reflection` is on.
 */
export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const logger = options.logger.child({ grpc_server: options.serviceName });
  const server = new Server();
  const health = createHealthService();
  server.addService(loadPackage().grpc.health.v1.Health.service, health.handlers);
  health.setStatus('', 'SERVING');
  /** Full names of the services added, for reflection (which lists only what this server serves). */
  const served = [HEALTH_SERVICE];

  const inFlight = grpcInFlight.labels(options.serviceName);
  const verifier = createCallVerifier(options.serviceName, options.callers);

  /** The proven caller, if this method allows it; throws UNAUTHORIZED / FORBIDDEN otherwise. */
  function authorize(method: string, metadata: Metadata, allowed: ReadonlySet<CallerName>): CallerName {
    try {
      const caller = verifier.verify(metadataValue(metadata, CALL_ASSERTION_KEY, ASSERTION_VALUE));
      if (!allowed.has(caller))
        throw new AppError('FORBIDDEN', `gRPC call refused: ${caller} may not call ${method}`);
      return caller;
    } catch (err) {
      // a refused call is either a misconfigured peer or someone probing: both worth a warning
      logger.warn({ method, reason: (err as Error).message }, 'gRPC call refused');
      throw err;
    }
  }

  function wrap(
    method: string,
    handler: UnaryHandler<unknown>,
    allowed: ReadonlySet<CallerName>,
  ): handleUnaryCall<unknown, unknown> {
    // '/lingua.identity.v1.IdentityService/GetUser' -> labels fixed once per method
    const [, grpcService = 'unknown', grpcMethod = 'unknown'] = method.split('/');
    const labels = { service: options.serviceName, grpc_service: grpcService, grpc_method: grpcMethod };
    const duration = grpcDuration.labels(labels);
    const observe = (started: bigint, code: number | undefined) => {
      inFlight.dec();
      duration.observe(secondsSince(started));
      grpcHandled.inc({ ...labels, grpc_code: grpcCodeLabel(code) });
    };
    return (call, callback) => {
      const startedAt = process.hrtime.bigint();
      inFlight.inc();
      const ctx: GrpcRequestContext = contextFromMetadata(call.metadata);
      // the caller's deadline and cancellation, for the layers below (database time limits, lock waits)
      const deadline = call.getDeadline();
      const controller = new AbortController();
      if (deadline instanceof Date || (typeof deadline === 'number' && Number.isFinite(deadline)))
        ctx.deadline = Number(deadline);
      ctx.signal = controller.signal;
      call.once('cancelled', () =>
        controller.abort(
          new AppError('REQUEST_ABANDONED', 'The caller cancelled the call or its deadline passed'),
        ),
      );
      const started = performance.now();
      const parent = extractTraceContext({
        get: (key) => metadataValue(call.metadata, key, TRACE_VALUE),
        keys: () => Object.keys(call.metadata.getMap()),
      });
      const attributes = { 'rpc.system': 'grpc', 'rpc.method': method, 'rpc.service': options.serviceName };
      void runWithRequestContext(ctx, () =>
        withSpan(`grpc ${method}`, { kind: SpanKind.SERVER, parent, attributes }, async () => {
          const log = (code: string) => ({
            method,
            caller: ctx.caller,
            code,
            ms: Math.round(performance.now() - started),
          });
          let response: unknown;
          try {
            ctx.caller = authorize(method, call.metadata, allowed);
            response = await handler(call.request as never, call as never);
          } catch (err) {
            if (isAppError(err) && !err.isServerError) logger.debug(log(err.code), err.message);
            else
              logger.error(
                { ...log(isAppError(err) ? err.code : 'INTERNAL_ERROR'), err },
                'gRPC call failed',
              );
            const serviceError = toServiceError(err);
            observe(startedAt, serviceError.code);
            callback(serviceError);
            return;
          }
          logger.debug(log('OK'), 'gRPC call');
          observe(startedAt, 0);
          callback(null, response);
        }),
      );
    };
  }

  return {
    server,
    addService(definition, handlers, allowedCallers) {
      const wrapped: Record<string, UntypedHandleCall> = {};
      for (const [name, method] of Object.entries(definition)) {
        // Streaming calls have no single response to await; add support here when an RPC needs it.
        if (method.requestStream || method.responseStream)
          throw new Error(`${method.path}: only unary methods are supported by createGrpcServer`);
        const handler = (handlers as Record<string, UnaryHandler<unknown> | undefined>)[name];
        if (handler === undefined) throw new Error(`${method.path}: no handler given`);
        const list = (allowedCallers as Record<string, readonly ServiceCaller[] | undefined>)[name];
        if (list === undefined) throw new Error(`${method.path}: no allowed callers given`);
        // fail at start, not on the first call: a caller allowed here must be one this server can verify
        for (const caller of list)
          if (options.callers[caller] === undefined)
            throw new Error(`${method.path} allows ${caller}, whose public key this server was not given`);
        const allowed = new Set<CallerName>(options.callers.operator ? [...list, 'operator'] : list);
        wrapped[name] = wrap(method.path, handler, allowed);
      }
      server.addService(definition, wrapped);
      const name = fullServiceName(definition);
      if (name !== undefined) served.push(name);
      if (name !== undefined && health.statusOf(name) === undefined) health.setStatus(name, 'SERVING');
    },
    setServingStatus: (service, status) => health.setStatus(service, status),
    start(port, host = '127.0.0.1') {
      // added last, once every service is known, so that it describes exactly those
      if (options.reflection)
        new ReflectionService(loadPackageDefinition(), { services: served }).addToServer(server);
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, bound) => {
          if (err) return reject(err);
          logger.info({ host, port: bound }, 'gRPC server listening');
          resolve(bound);
        });
      });
    },
    stop(graceMs = 10_000) {
      health.shutdown();
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          logger.warn({ graceMs }, 'gRPC calls still running at shutdown; cancelling them');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
