import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of this process. Every family in catalogue.ts registers here, once per process:
 * services started side by side in one process (the tests' in-process stack) share it and are told
 * apart by their `service` label.
 */
export const registry = new Registry();

// Node runtime: CPU, heap, GC, event-loop delay, handles (prom-client's default collectors). The
// delay is sampled by a timer every `eventLoopMonitoringPrecision` ms, which wakes an idle process:
// at 20 ms that was 2.3 ms of CPU a second per process (six processes: about a quarter of the
// stack's CPU at rest), at 100 ms 0.7 ms; a stall still delays the next sample by its whole length.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
// prom-client names three gauges `_total`, which Prometheus reserves for counters (promtool check
// metrics flags them); the same counts stay available by type as nodejs_active_{handles,requests,resources}.
for (const name of [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
])
  registry.removeSingleMetric(name);

/** The Prometheus text exposition of everything registered. */
export const metricsText = (): Promise<string> => registry.metrics();
export const METRICS_CONTENT_TYPE = registry.contentType;
