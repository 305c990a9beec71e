// The meters the benches read from procfs (bench/support.js): on-CPU time from schedstat, main-thread
// wake-ups, the bench servers' start, and the open-loop generator's record of where slow answers fell.
import type { ChildProcess } from 'node:child_process';

/* eslint-disable @typescript-eslint/no-require-imports */
const support = require('../../bench/support');

const busyFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* burn CPU on purpose */
  }
};

const linux = process.platform === 'linux';

(linux ? describe : describe.skip)('bench meters (procfs)', () => {
  it('When this process burns 60 ms of CPU, Then its on-CPU time grows by about that, to the sub-tick', () => {
    const before: number = support.onCpuMsOf([process.pid]);
    busyFor(60);
    const grew = support.onCpuMsOf([process.pid]) - before;
    expect(grew).toBeGreaterThanOrEqual(55);
    expect(grew).toBeLessThan(1_000);
    expect(grew % 10).not.toBe(0); // schedstat's ns, not /proc/<pid>/stat's 10 ms ticks
  });

  it('When the event loop sleeps 20 times in a row, Then the main thread counts at least 20 wake-ups', async () => {
    const before: number = support.sleepsOf(process.pid);
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
    expect(support.sleepsOf(process.pid) - before).toBeGreaterThanOrEqual(20);
    expect(support.sleepsOf(2 ** 22 + 1)).toBeNull(); // no such process
  });

  it('When the run queue is read, Then it is the wait for a CPU, not the time on one', () => {
    const waited: number = support.runQueueMsOf([process.pid]);
    busyFor(30);
    expect(support.runQueueMsOf([process.pid])).toBeGreaterThanOrEqual(waited);
    expect(support.onCpuMsOf([process.pid])).not.toBe(support.runQueueMsOf([process.pid]));
  });
});

describe('bench server and open-loop generator', () => {
  let child: ChildProcess | undefined;
  afterAll(() => child?.kill('SIGTERM'));

  it('When a bare bench server is started and given 100 req/s for 1 s, Then every call is answered and the slowest answer of each 100 ms slice is kept', async () => {
    const started = support.startBenchServer('bare');
    child = started.child;
    const url: string = await started.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await support.fixedRate({
      url: `${url}/api/flashcards/1`,
      rate: 100,
      seconds: 1,
      connections: 4,
    });
    expect(r).toMatchObject({ sent: 100, ok: 100, errors: 0 });
    expect(r.slowest).toHaveLength(10);
    // calls left in (nearly) every slice, so most hold a real answer time (a stalled timer may skip one)
    expect(r.slowest.filter((ms: number) => ms > 0).length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...r.slowest)).toBe(r.latencies.at(-1));
    expect(r.ownDelayMaxMs).toBeGreaterThan(0);
  });
});
