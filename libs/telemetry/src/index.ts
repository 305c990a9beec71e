export { tracer, injectTraceContext, extractTraceContext, withSpan, SpanKind } from './tracing';
export type { HeaderSetter, HeaderGetter } from './tracing';
export { installInMemoryTracing } from './in-memory-tracing';
export { startTelemetry } from './start-telemetry';
