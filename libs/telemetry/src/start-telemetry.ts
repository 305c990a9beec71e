import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts the OpenTelemetry SDK for a service process: W3C propagation and async context always;
 * span export over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK reads the standard
 * OTEL_* variables). Our libs create the HTTP, gRPC and NATS spans themselves, so no
 * monkey-patching instrumentations are loaded (they also do not work under jest's module loader).
 */
export function startTelemetry(serviceName: string): { shutdown(): Promise<void> } {
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_TRACES_EXPORTER)
    process.env.OTEL_TRACES_EXPORTER = 'none';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
