// The pure pieces of the journey bench: the seeded data's distribution, the latency histograms, the
// capacity rule and the tables. No I/O here, so test/platform/journey-bench.test.ts can check them.
const hdr = require('hdr-histogram-js');

/** A seeded PRNG (mulberry32): the same seed gives the same data set, so S and L are reproducible. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller) from a uniform source. */
function normal(random) {
  const u = 1 - random(); // (0, 1]: log(0) is not a number
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * Cards per user: log-normal with the given median and sigma, floored to whole cards and capped at `max`
 * (so 0 happens, for draws under one card). Few users hold many cards, most a few dozen.
 */
function cardCounts({ users, max, median, sigma, seed }) {
  const random = prng(seed);
  const mu = Math.log(median);
  return Array.from({ length: users }, () =>
    Math.min(max, Math.floor(Math.exp(mu + sigma * normal(random)))),
  );
}

/** The data set sizes of the issue: S = 1,000 users with 0-500 cards, L = 10,000 users with 0-5,000. */
const SIZES = {
  S: { users: 1_000, max: 500, median: 25, sigma: 1.5, seed: 1 },
  L: { users: 10_000, max: 5_000, median: 250, sigma: 1.5, seed: 2 },
};

/** Latency recorder for one endpoint: an HDR histogram in µs (1 µs to 60 s, 3 significant digits). */
function newHistogram() {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** Per endpoint: a histogram of the answered calls, errors by status, and the count. */
class EndpointStats {
  constructor() {
    this.byName = new Map();
  }

  entry(name) {
    let e = this.byName.get(name);
    if (!e) {
      e = { histogram: newHistogram(), count: 0, errors: 0, errorsByStatus: {} };
      this.byName.set(name, e);
    }
    return e;
  }

  /** One call: its latency in ms and whether it succeeded (status for the error tally). */
  record(name, ms, ok, status) {
    const e = this.entry(name);
    e.count++;
    if (ok) e.histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
    else {
      e.errors++;
      e.errorsByStatus[status] = (e.errorsByStatus[status] ?? 0) + 1;
    }
  }

  /** [{ name, count, errors, errorsByStatus, p50, p95, p99, max }] in ms, by name; one row 'all' last. */
  rows() {
    const all = newHistogram();
    const rows = [];
    let count = 0;
    let errors = 0;
    const errorsByStatus = {};
    for (const [name, e] of [...this.byName].sort(([a], [b]) => a.localeCompare(b))) {
      all.add(e.histogram);
      count += e.count;
      errors += e.errors;
      for (const [status, n] of Object.entries(e.errorsByStatus))
        errorsByStatus[status] = (errorsByStatus[status] ?? 0) + n;
      rows.push({
        name,
        count: e.count,
        errors: e.errors,
        errorsByStatus: e.errorsByStatus,
        ...summary(e.histogram),
      });
    }
    rows.push({ name: 'all', count, errors, errorsByStatus, ...summary(all) });
    return rows;
  }
}

function summary(h) {
  if (h.totalCount === 0) return { p50: undefined, p95: undefined, p99: undefined, max: undefined };
  const ms = (us) => us / 1000;
  return {
    p50: ms(h.getValueAtPercentile(50)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    max: ms(h.maxValue),
  };
}

/** A rate holds when no call failed and every endpoint's p95 is under the limit (the capacity rule). */
function holds(rows, p95LimitMs) {
  return rows.every((r) => r.errors === 0 && (r.p95 === undefined || r.p95 < p95LimitMs));
}

/**
 * The next rate of the step search, or undefined when it is done: double while the rate holds, then
 * bisect between the highest that held and the lowest that did not until they are within `precision`
 * (a share of the higher one). `steps` are [rate, held] in the order they ran.
 */
function nextRate(steps, { start, max, precision = 0.1 }) {
  if (steps.length === 0) return start;
  const good = Math.max(0, ...steps.filter(([, ok]) => ok).map(([r]) => r));
  const bad = Math.min(Infinity, ...steps.filter(([, ok]) => !ok).map(([r]) => r));
  if (bad === Infinity) return good * 2 <= max ? good * 2 : undefined;
  if (good === 0) return bad / 2 >= 1 ? Math.floor(bad / 2) : undefined;
  if (bad - good <= Math.max(1, precision * bad)) return undefined;
  return Math.round((good + bad) / 2);
}

/** The capacity found by the steps: the highest rate that held (0 when none did). */
const capacityOf = (steps) => Math.max(0, ...steps.filter(([, ok]) => ok).map(([r]) => r));

const fmt = (v, digits = 1) => (v === undefined || v === null || Number.isNaN(v) ? '–' : v.toFixed(digits));

/** A plain text table: `head` and `rows` are arrays of cells; the first column is left-aligned. */
function table(head, rows) {
  const widths = head.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

module.exports = { prng, cardCounts, SIZES, EndpointStats, holds, nextRate, capacityOf, fmt, table };
