import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PropagatingTracerProvider } from './propagating-tracer';

/**
 * Starts OpenTelemetry for a service process. Every span has its ids and trace context is always
 * propagated (so ids reach logs and other services); spans are recorded by the SDK and exported over
 * OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) is set (the SDK reads the
 * standard OTEL_* variables), and otherwise not recorded at all (propagating-tracer.ts), since they
 * would go nowhere. Our libs create the HTTP, gRPC and NATS spans themselves, so no monkey-patching
 * instrumentations are loaded.
 */
export function startTelemetry(serviceName: string): { shutdown(): Promise<void> } {
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_TRACES_EXPORTER) {
    // metrics are Prometheus's, pulled from @lingua/metrics' own port (docs/adr/0003-prometheus-metrics.md)
    process.env.OTEL_METRICS_EXPORTER ??= 'none';
    process.env.OTEL_LOGS_EXPORTER ??= 'none';
    const sdk = new NodeSDK({ instrumentations: [] });
    sdk.start();
    return { shutdown: () => sdk.shutdown() };
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new PropagatingTracerProvider());
  return { shutdown: () => Promise.resolve() };
}
