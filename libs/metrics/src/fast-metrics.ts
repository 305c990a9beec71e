import type { Registry } from 'prom-client';

/*
 * Per-request families (HTTP RED at every process, the gateway's upstream latency) kept as plain
 * numbers and turned into Prometheus families only when scraped. prom-client's own histograms
 * validate and hash the label set on every observation (about 1 µs each, measured by
 * bench/metrics.js); here a caller looks its series up once (label values fixed) and an
 * observation is a few additions.
 */

type Labels = Record<string, string>;

/** One label set's running totals. `buckets[i]` counts observations in (bound[i-1], bound[i]]. */
export interface HistogramSeries {
  readonly labels: Labels;
  count: number;
  sum: number;
  readonly buckets: Float64Array;
}

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** What prom-client's Registry reads from a metric (the same shape its own classes return from get()). */
interface CustomMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' };
}

function register(
  registry: Registry,
  metric: Omit<CustomMetric, 'aggregator' | 'get'>,
  values: () => MetricValue[],
) {
  const custom: CustomMetric = {
    ...metric,
    aggregator: 'sum',
    get: () => ({ ...metric, aggregator: 'sum', values: values() }),
  };
  registry.registerMetric(custom as never);
}

/**
 * A histogram, optionally with a counter of the same observations (requests_total beside
 * request_duration_seconds: one observation feeds both).
 */
export class FastHistogram {
  private readonly all = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    private readonly options: {
      name: string;
      help: string;
      labelNames: readonly string[];
      buckets: readonly number[];
      /** A counter family fed by the same observations. */
      counter?: { name: string; help: string };
    },
  ) {
    register(registry, { name: options.name, help: options.help, type: 'histogram' }, () =>
      this.histogramValues(),
    );
    if (options.counter)
      register(registry, { ...options.counter, type: 'counter' }, () =>
        [...this.all.values()].map((s) => ({ labels: s.labels, value: s.count })),
      );
  }

  /** The series of these label values (in labelNames order), created at first use; keep it. */
  series(...values: string[]): HistogramSeries {
    const key = values.join('\u0000');
    let s = this.all.get(key);
    if (!s) {
      const labels: Labels = {};
      this.options.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ''));
      s = { labels, count: 0, sum: 0, buckets: new Float64Array(this.options.buckets.length + 1) };
      this.all.set(key, s);
    }
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    const bounds = this.options.buckets;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    s.buckets[i]!++;
    s.count++;
    s.sum += value;
  }

  private histogramValues(): MetricValue[] {
    const { name, buckets } = this.options;
    const out: MetricValue[] = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      buckets.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        out.push({
          labels: { ...s.labels, le: String(bound) },
          value: cumulative,
          metricName: `${name}_bucket`,
        });
      });
      out.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}

/** A gauge whose series are plain objects the owner changes directly (`series.value++`). */
export class FastGauge {
  private readonly all = new Map<string, { labels: Labels; value: number }>();

  constructor(
    registry: Registry,
    private readonly options: { name: string; help: string; labelNames: readonly string[] },
  ) {
    register(registry, { name: options.name, help: options.help, type: 'gauge' }, () =>
      [...this.all.values()].map((s) => ({ labels: s.labels, value: s.value })),
    );
  }

  series(...values: string[]): { labels: Labels; value: number } {
    const key = values.join('\u0000');
    let s = this.all.get(key);
    if (!s) {
      const labels: Labels = {};
      this.options.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ''));
      s = { labels, value: 0 };
      this.all.set(key, s);
    }
    return s;
  }
}
