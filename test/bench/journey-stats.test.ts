// The pure pieces of the journey bench (bench/journey/stats.js, mix.js): the seeded distribution of
// cards per user, the latency table, the capacity rule and its step search, the mix's fallbacks.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stats = require('../../bench/journey/stats');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mix = require('../../bench/journey/mix');

describe('journey bench: seeded data set', () => {
  it('When card counts are drawn for a size, Then they are reproducible, within 0..max, and log-normal around the median', () => {
    const spec = { users: 10_000, max: 5_000, median: 250, sigma: 1.5, seed: 2 };
    const counts: number[] = stats.cardCounts(spec);
    expect(stats.cardCounts(spec)).toEqual(counts);
    expect(counts).toHaveLength(10_000);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...counts)).toBe(5_000); // the cap is reached: the tail is long
    const sorted = [...counts].sort((a, b) => a - b);
    const median = sorted[5_000];
    expect(median).toBeGreaterThan(230);
    expect(median).toBeLessThan(270);
    // log-normal: a third of a sigma band either side of the median holds about 26 % of the users
    const band = counts.filter((c) => c >= 250 * Math.exp(-0.5) && c <= 250 * Math.exp(0.5)).length / 10_000;
    expect(band).toBeGreaterThan(0.23);
    expect(band).toBeLessThan(0.29);
  });

  it('When S is drawn, Then some users have no cards and none more than 500', () => {
    const counts: number[] = stats.cardCounts(stats.SIZES.S);
    expect(counts.some((c) => c === 0)).toBe(true);
    expect(Math.max(...counts)).toBeLessThanOrEqual(500);
  });
});

describe('journey bench: latency table and capacity rule', () => {
  it('When calls are recorded, Then each endpoint shows its percentiles and errors, and "all" sums them', () => {
    const s = new stats.EndpointStats();
    for (let i = 1; i <= 100; i++) s.record('due list', i, true, 200);
    s.record('due list', 5, false, 503);
    s.record('profile', 2, true, 200);
    const rows = s.rows();
    const due = rows.find((r: { name: string }) => r.name === 'due list');
    expect(due).toMatchObject({ count: 101, errors: 1, errorsByStatus: { 503: 1 } });
    expect(due.p50).toBeCloseTo(50, 0);
    expect(due.p95).toBeCloseTo(95, 0);
    expect(due.max).toBeCloseTo(100, 0);
    expect(rows.at(-1)).toMatchObject({ name: 'all', count: 102, errors: 1 });
  });

  it('When a rate has an error or a p95 at the limit, Then it does not hold', () => {
    const row = (p95: number, errors = 0) => ({ name: 'x', p95, errors });
    expect(stats.holds([row(10), row(49.9)], 50)).toBe(true);
    expect(stats.holds([row(10), row(50)], 50)).toBe(false);
    expect(stats.holds([row(10, 1)], 50)).toBe(false);
  });

  it('When the steps run, Then the rate doubles while it holds and is bisected after, to the highest that held', () => {
    const limit = 130;
    const steps: [number, boolean][] = [];
    for (
      let r = stats.nextRate(steps, { start: 25, max: 2000 });
      r !== undefined;
      r = stats.nextRate(steps, { start: 25, max: 2000 })
    )
      steps.push([r, r <= limit]);
    expect(steps.slice(0, 4).map(([r]) => r)).toEqual([25, 50, 100, 200]);
    const capacity = stats.capacityOf(steps);
    expect(capacity).toBeLessThanOrEqual(limit);
    expect(capacity).toBeGreaterThan(limit * 0.9);
  });

  it('When even the start rate fails, Then the search halves it down', () => {
    const steps: [number, boolean][] = [[25, false]];
    expect(stats.nextRate(steps, { start: 25, max: 2000 })).toBe(12);
  });
});

describe('journey bench: the mix', () => {
  it('When a user has no card, no session and a refresh in flight, Then every draw is a call the user can make', () => {
    const user = { cards: [], sets: [], session: undefined, renewing: true };
    const random = stats.prng(3);
    for (let i = 0; i < 2_000; i++) {
      const name = mix.pickCall(user, random);
      const call = mix.CALLS[name];
      expect(call.needs ? call.needs(user) : true).toBeTruthy();
    }
  });
});

describe('journey bench: query shapes and plans', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const capture = require('../../bench/journey/capture');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const explain = require('../../bench/journey/explain');

  it('When commands are read off the wire, Then each query is kept with its filter, and shapes drop the values', () => {
    const find = {
      find: 'cards',
      filter: { userId: 'u1', due: { $lte: new Date() } },
      sort: { due: 1 },
      $db: 'f',
    };
    expect(capture.queriesOf(find, {})).toEqual([
      {
        db: 'f',
        collection: 'cards',
        op: 'find',
        filter: find.filter,
        sort: { due: 1 },
        limit: undefined,
        projection: undefined,
      },
    ]);
    // an update's statements may come as a document sequence (OP_MSG kind 1)
    const update = { update: 'cards', $db: 'f' };
    const statements = { updates: [{ q: { _id: 'a' } }, { q: { _id: 'b', userId: 'u' } }] };
    expect(capture.queriesOf(update, statements).map((q: { filter: unknown }) => q.filter)).toEqual([
      { _id: 'a' },
      { _id: 'b', userId: 'u' },
    ]);
    expect(capture.queriesOf({ insert: 'cards', $db: 'f' }, {})).toEqual([]);
    expect(capture.shapeOf(find.filter)).toEqual({ userId: 'string', due: { $lte: 'date' } });
  });

  it('When a PostgreSQL plan scans a table, Then it is not index-served; index and bitmap scans are', () => {
    const plan = (nodeType: string, extra = {}) => ({
      queryPlanner: { Plan: { 'Node Type': 'Subquery Scan', Plans: [{ 'Node Type': nodeType, ...extra }] } },
    });
    expect(explain.judge(plan('Seq Scan', { 'Relation Name': 'documents_1' })).indexed).toBe(false);
    expect(explain.judge(plan('Index Scan', { 'Index Name': 'userId_1' }))).toEqual({
      scans: [{ type: 'Index Scan', index: 'userId_1', relation: undefined }],
      indexed: true,
    });
    expect(
      explain.judge(plan('Bitmap Heap Scan', { Plans: [{ 'Node Type': 'Bitmap Index Scan' }] })).indexed,
    ).toBe(true);
  });
});
