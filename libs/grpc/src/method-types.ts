import type { ServerUnaryCall, ServiceDefinition } from '@grpc/grpc-js';

// Types are read off the serializers of a generated service definition, so clients and handlers are
// typed from the .proto without naming each message: what the caller builds (Request), what the
// handler receives with defaults filled in (RequestOutput), and the same pair for responses.
export type RequestOf<M> = M extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
export type RequestOutputOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer R } ? R : never;
export type ResponseOf<M> = M extends { responseSerialize: (value: infer R) => Buffer } ? R : never;
export type ResponseOutputOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer R } ? R : never;

/** The RPC names of a service definition ('GetUser', ...), without its string index signature. */
export type MethodName<D> = keyof {
  [K in keyof D as string extends K ? never : K extends string ? K : never]: 0;
};

/** A unary handler that returns (or resolves to) its response and throws AppError to fail. */
export type UnaryHandler<M> = (
  request: RequestOutputOf<M>,
  call: ServerUnaryCall<RequestOutputOf<M>, ResponseOf<M>>,
) => Promise<ResponseOf<M>> | ResponseOf<M>;

/** One handler per RPC of the service definition D. */
export type UnaryHandlers<D extends ServiceDefinition> = { [K in MethodName<D>]: UnaryHandler<D[K]> };
