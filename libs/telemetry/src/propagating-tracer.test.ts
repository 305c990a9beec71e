import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PropagatingTracerProvider } from './propagating-tracer';

describe('the tracer of a process that exports no spans', () => {
  const tracer = new PropagatingTracerProvider().getTracer('lingua');

  it('When a span starts with no parent, Then it opens a sampled trace with ids of its own and records nothing', () => {
    const a = tracer.startSpan('GET /a', {}, ROOT_CONTEXT);
    const b = tracer.startSpan('GET /b', {}, ROOT_CONTEXT);
    expect(a.spanContext()).toMatchObject({ traceFlags: TraceFlags.SAMPLED });
    expect(a.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(b.spanContext().traceId).not.toBe(a.spanContext().traceId);
    expect(a.isRecording()).toBe(false);
  });

  it("When a span starts under a caller's context, Then it joins the caller's trace with its flags and a span id of its own", () => {
    const parent = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE };
    const child = tracer.startSpan('GET /c', {}, trace.setSpanContext(ROOT_CONTEXT, parent));
    expect(child.spanContext()).toMatchObject({ traceId: parent.traceId, traceFlags: TraceFlags.NONE });
    expect(child.spanContext().spanId).not.toBe(parent.spanId);
  });

  it('When startActiveSpan runs a function, Then the span is the active one inside it', () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const seen = tracer.startActiveSpan('work', (span) => [span, trace.getActiveSpan()]);
      expect(seen[1]).toBe(seen[0]);
    } finally {
      context.disable();
    }
  });
});
