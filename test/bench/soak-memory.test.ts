// The chaos soak's memory verdict (bench/soak-memory.js): a garbage collector's sawtooth or a heap
// that shrinks is no growth; memory that keeps growing is, whatever single readings say.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { soakMemory } = require('../../bench/soak-memory');

const MB = 1024;
/** Readings every 10 s over a 600 s soak, `rssAt(seconds)` in MB for one process. */
const soak = (rssAt: (t: number) => number) =>
  Array.from({ length: 61 }, (_, i) => ({ at: i * 10, rss: { p: Math.round(rssAt(i * 10) * MB) } }));

describe('chaos soak: memory verdict', () => {
  it('When RSS swings in a steady sawtooth (a Go heap), Then the verdict is flat although one-minute medians differ by 30 %', () => {
    // 30 -> 48 MB and back every 300 s, as a NATS node did in the soak of 27 Nov
    const m = soakMemory(soak((t) => 30 + 18 * ((t % 300) / 300))).p;
    expect(m.lastWindow / m.firstWindow).toBeGreaterThan(1.2);
    expect(m.ratio).toBeGreaterThan(0.85);
    expect(m.ratio).toBeLessThan(1.15);
    expect(m.peak).toBeGreaterThanOrEqual(47 * MB);
  });

  it('When a sawtooth period does not divide the soak, Then the verdict stays within 15 % of flat (20 % fails)', () => {
    for (const period of [90, 170, 240, 400]) {
      const m = soakMemory(soak((t) => 30 + 18 * ((t % period) / period))).p;
      expect(Math.abs(m.ratio - 1)).toBeLessThan(0.15);
    }
  });

  it('When RSS grows steadily by 30 % (a leak), Then the ratio says so', () => {
    const m = soakMemory(soak((t) => 200 * (1 + (0.3 * t) / 600))).p;
    expect(m.ratio).toBeCloseTo(1.3, 2);
  });

  it('When RSS triples in the second half, Then the verdict fails it (the line would start below zero)', () => {
    const m = soakMemory(soak((t) => (t < 300 ? 100 : 400))).p;
    expect(m.ratio).toBe(Infinity);
  });

  it('When a heap shrinks in one step and levels off, Then it is not growth', () => {
    const m = soakMemory(soak((t) => (t < 110 ? 365 : Math.min(241, 142 + t - 110)))).p;
    expect(m.ratio).toBeLessThanOrEqual(1);
  });

  it('When a process stopped before the soak ended, Then there is no ratio to pass', () => {
    const samples = soak(() => 100).map((s) => (s.at > 300 ? { ...s, rss: {} } : s));
    expect(soakMemory(samples).p.ratio).toBeUndefined();
  });
});

describe('chaos soak: peaks against the Kubernetes memory limits', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { memoryLimits, overLimits } = require('../../bench/soak-memory');

  it('When the limits are read, Then every deployable has one, from its resources.yaml', () => {
    const limits = memoryLimits();
    expect(Object.keys(limits).sort()).toEqual([
      'ai',
      'flashcards',
      'gateway',
      'identity',
      'notifications',
      'subscriptions',
    ]);
    for (const kb of Object.values(limits)) expect(kb).toBeGreaterThanOrEqual(64 * MB);
  });

  it('When a replica peaks above 85 % of its limit, Then it is named; at or below, or with no limit (NATS, Redis), Then not', () => {
    const limits = { gateway: 320 * MB, identity: 384 * MB };
    const over = overLimits(
      {
        'gateway-0': { peak: 343 * MB }, // the soak of 27 Nov
        'gateway-1': { peak: 272 * MB }, // exactly 85 %
        'identity-0': { peak: 200 * MB },
        'nats-0': { peak: 900 * MB },
      },
      limits,
    );
    expect(over).toEqual([{ process: 'gateway-0', peakKb: 343 * MB, limitKb: 320 * MB }]);
  });
});
