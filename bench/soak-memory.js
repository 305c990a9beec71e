// The chaos soak's memory verdict (bench/chaos.js): from readings of every process's RSS over the
// soak, the figures its report prints. Pure, so test/bench/soak-memory.test.ts checks it.

/**
 * Per process: a line through the medians of the soak's two halves, read at the soak's start and
 * end, and their ratio (the verdict: a leak lifts the second half, and the line carries that over
 * the whole soak); the medians of the first and last `windowMs` and the peak, for the report.
 * `samples`: `{ at: seconds since the soak began, rss: { label: kB } }`.
 *
 * Why not two readings, or two one-minute windows: each lands anywhere on a garbage collector's
 * cycle. In the soak of 27 Nov a NATS node (Go) swung 30-48 MB in a 5-minute sawtooth whose peaks
 * and troughs did not move (one-minute medians 33 and 43 MB: 1.31), and V8's memory reducer cut a
 * gateway from 365 to 142 MB in one step, after which it grew back to a flat 241 MB. Why medians of
 * halves and not least squares: over a few cycles a least-squares line follows the sawtooth's
 * ramps (+half its swing over two cycles); a half's median takes whole cycles as they come. The
 * verdict errs towards failing: a step up that then stays flat counts double (the line carries the
 * difference of the halves' centres out to both ends), so a lasting +10 % after mid-soak fails.
 */
function soakMemory(samples, windowMs = 60_000) {
  const windowS = windowMs / 1000;
  const end = samples.at(-1).at;
  const labels = [...new Set(samples.flatMap((x) => Object.keys(x.rss)))];
  const out = {};
  for (const label of labels) {
    const points = samples.filter((x) => x.rss[label]).map((x) => [x.at, x.rss[label]]);
    const median = (from, to) => {
      const xs = points.filter(([at]) => at >= from && at <= to).map(([, kb]) => kb);
      return xs.length ? xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] : undefined;
    };
    const first = median(0, end / 2);
    const second = median(end / 2, end);
    // read over the whole soak, still running at its end: otherwise no line to judge
    const whole = points.length >= samples.length * 0.9 && points.at(-1)[0] === end;
    // the line through (end/4, first) and (3·end/4, second), at 0 and at end
    const trend =
      whole && first && second
        ? { start: first - (second - first) / 2, end: second + (second - first) / 2 }
        : undefined;
    out[label] = {
      trend,
      // a line that starts at or below zero grew at least threefold: fail it, never a negative ratio
      ratio: trend ? (trend.start > 0 ? trend.end / trend.start : Infinity) : undefined,
      firstWindow: median(0, windowS),
      lastWindow: median(end - windowS, end),
      peak: Math.max(...points.map(([, kb]) => kb)),
    };
  }
  return out;
}

// each deployable's limit, from its one place (deploy/k8s/services/<name>/resources.yaml)
const { memoryLimits } = require('../deploy/local/container-memory');

/**
 * Processes whose peak RSS passed `share` of their deployable's memory limit (a process labelled
 * `<deployable>-<n>` is a replica of it; others, such as NATS or Redis nodes, have no limit here):
 * [{ process, peakKb, limitKb }]. At the limit the kernel kills the container, so the margin is for
 * what a soak on one machine does not show (a longer run, a larger heap on another node).
 */
function overLimits(rss, limits = memoryLimits(), share = 0.85) {
  return Object.entries(rss)
    .map(([label, m]) => ({ process: label, peakKb: m.peak, limitKb: limits[label.replace(/-\d+$/, '')] }))
    .filter((r) => r.limitKb !== undefined && r.peakKb > share * r.limitKb);
}

module.exports = { soakMemory, memoryLimits, overLimits };
