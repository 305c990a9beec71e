import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of this process. Every family in catalogue.ts registers here, once per process:
 * services started side by side in one process (the tests' in-process stack) share it and are told
 * apart by their `service` label.
 */
export const registry = new Registry();

// Node runtime: CPU, heap, GC, event-loop delay, handles (prom-client's default collectors). The
// delay is sampled by a timer every `eventLoopMonitoringPrecision` ms, which wakes an idle process:
// at 100 ms it was ten of an idle service's fifteen wake-ups a second (bench/journey's wake meter).
// Once a second still records every stall of a second or more, and a shorter one whenever it holds
// the sample up; while requests flow, the load shedder times the loop every 250 ms besides, and
// acts on it (libs/http load-shedder.ts).
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1_000 });
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
