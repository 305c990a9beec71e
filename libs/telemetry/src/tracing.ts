import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

export { SpanKind };

/** One tracer for our own spans; names are namespaced (`lingua.*`) as the conventions ask. */
export const tracer = () => trace.getTracer('lingua');

export type HeaderSetter = (key: string, value: string) => void;
export type HeaderGetter = { get(key: string): string | undefined; keys(): string[] };

/** Writes the W3C traceparent/tracestate (and baggage) of `ctx` through the setter. */
export function injectTraceContext(set: HeaderSetter, ctx: Context = context.active()): void {
  propagation.inject(ctx, undefined, { set: (_carrier, key, value) => set(key, value) });
}

/** Reads a remote parent context from incoming headers/metadata. */
export function extractTraceContext(getter: HeaderGetter): Context {
  return propagation.extract(context.active(), undefined, {
    get: (_carrier, key) => getter.get(key),
    keys: () => getter.keys(),
  });
}

/**
 * Runs fn inside a new span that is the active context for everything fn awaits; records
 * failures on the span and rethrows them.
 */
export async function withSpan<T>(
  name: string,
  options: { kind: SpanKind; parent?: Context; attributes?: Record<string, string | number | boolean> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
