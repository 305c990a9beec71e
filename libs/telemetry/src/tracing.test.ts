import { context, trace } from '@opentelemetry/api';
import { installInMemoryTracing } from './in-memory-tracing';
import { extractTraceContext, injectTraceContext, SpanKind, withSpan } from './tracing';

describe('trace propagation helpers', () => {
  let tracing: ReturnType<typeof installInMemoryTracing>;
  beforeAll(() => (tracing = installInMemoryTracing()));
  afterAll(() => tracing.shutdown());

  it('When context is injected into headers and extracted on the other side, Then the child span shares the trace id', async () => {
    const headers = new Map<string, string>();
    await withSpan('producer', { kind: SpanKind.PRODUCER }, async () => {
      injectTraceContext((k, v) => headers.set(k, v));
    });
    expect(headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const parent = extractTraceContext({ get: (k) => headers.get(k), keys: () => [...headers.keys()] });
    await withSpan('consumer', { kind: SpanKind.CONSUMER, parent }, async () => {
      expect(trace.getSpan(context.active())).toBeDefined();
    });
    const [producer, consumer] = tracing.exporter.getFinishedSpans();
    expect(consumer!.spanContext().traceId).toBe(producer!.spanContext().traceId);
    expect(consumer!.parentSpanContext?.spanId).toBe(producer!.spanContext().spanId);
  });

  it('When the wrapped function throws, Then the span records the error and the error propagates', async () => {
    tracing.exporter.reset();
    await expect(
      withSpan('failing', { kind: SpanKind.INTERNAL }, async () => Promise.reject(new Error('nope'))),
    ).rejects.toThrow('nope');
    expect(tracing.exporter.getFinishedSpans()[0]!.status.code).toBe(2);
  });
});
