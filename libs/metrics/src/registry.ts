import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of this process. Every family in catalogue.ts registers here, once per process:
 * services started side by side in one process (the tests' in-process stack) share it and are told
 * apart by their `service` label.
 */
export const registry = new Registry();

// Node runtime: CPU, heap, GC, event-loop delay, handles (prom-client's default collectors).
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

/** The Prometheus text exposition of everything registered. */
export const metricsText = (): Promise<string> => registry.metrics();
export const METRICS_CONTENT_TYPE = registry.contentType;
