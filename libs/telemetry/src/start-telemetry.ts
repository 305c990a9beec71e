import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { TracerProvider } from '@opentelemetry/sdk-trace';

/**
 * Starts OpenTelemetry for a service process. Spans are always recorded and trace context always
 * propagated (so ids reach logs and other services); they are exported over OTLP/HTTP only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK reads the standard OTEL_* variables). Our libs create
 * the HTTP, gRPC and NATS spans themselves, so no monkey-patching instrumentations are loaded.
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
  const provider = new TracerProvider();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return { shutdown: () => provider.shutdown() };
}
