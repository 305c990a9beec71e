// The meters the benches read from procfs (bench/support.js): on-CPU time from schedstat, main-thread
// wake-ups, the bench servers' start, and the open-loop generator's record of where slow answers fell.
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';

/* eslint-disable @typescript-eslint/no-require-imports */
const support = require('../../bench/support');

/** Burns `ms` of this process's CPU (not of wall time: on a loaded machine the two differ). */
const burnCpu = (ms: number) => {
  const from = process.cpuUsage();
  const deadline = performance.now() + 5_000;
  for (;;) {
    const used = process.cpuUsage(from);
    if ((used.user + used.system) / 1000 >= ms || performance.now() > deadline) return;
  }
};

const linux = process.platform === 'linux';

(linux ? describe : describe.skip)('bench meters (procfs)', () => {
  it('When this process burns 60 ms of CPU, Then its on-CPU time grows by as much as getrusage says, to the sub-tick', () => {
    const before: number = support.onCpuMsOf([process.pid]);
    const rusage = process.cpuUsage();
    burnCpu(60);
    const grew = support.onCpuMsOf([process.pid]) - before;
    const used = (process.cpuUsage(rusage).user + process.cpuUsage(rusage).system) / 1000;
    expect(used).toBeGreaterThanOrEqual(60);
    // both come from the scheduler's clock (all threads): the same time, read a moment apart
    expect(Math.abs(grew - used)).toBeLessThan(10);
    expect(grew % 10).not.toBe(0); // schedstat's ns, not /proc/<pid>/stat's 10 ms ticks
  });

  it('When the main thread sleeps 20 times in a row, Then it counts at least 20 wake-ups', () => {
    const before: number = support.sleepsOf(process.pid);
    // a futex wait with a timeout always blocks: a timer of the event loop may expire while the thread
    // waits for a core on a loaded machine, and then epoll returns at once and the loop never sleeps
    const cell = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 20; i++) Atomics.wait(cell, 0, 0, 5);
    expect(support.sleepsOf(process.pid) - before).toBeGreaterThanOrEqual(20);
    expect(support.sleepsOf(2 ** 22 + 1)).toBeNull(); // no such process
  });

  it('When more processes burn CPU than there are cores, Then the run-queue time of each is its life less its time on a CPU', async () => {
    const count = os.availableParallelism() + 1;
    // each burns 300 ms of its own CPU (never sleeping), says when it started burning and how long it
    // has lived, then idles
    const burn =
      'const s = performance.now(), f = process.cpuUsage(); for (;;) { const u = process.cpuUsage(f); if (u.user + u.system >= 300_000) break; }' +
      ' process.stdout.write(s + " " + performance.now() + "\\n"); setTimeout(() => {}, 30_000)';
    const burners = Array.from({ length: count }, () => spawn(process.execPath, ['-e', burn]));
    try {
      const lived = await Promise.all(
        burners.map(
          (c) =>
            new Promise<[number, number]>((resolve) =>
              c.stdout.once('data', (d: Buffer) =>
                resolve(String(d).split(' ').map(Number) as [number, number]),
              ),
            ),
        ),
      );
      burners.forEach((c, i) => {
        const onCpu: number = support.onCpuMsOf([c.pid]);
        const waited: number = support.runQueueMsOf([c.pid]);
        expect(onCpu).toBeGreaterThanOrEqual(300);
        // the burner is idle now: equal readings could only come from the same field
        expect(waited).not.toBe(onCpu);
        // runnable all the while it burned: on a CPU or waiting for one. The meters sum every thread
        // (V8's compiler and GC threads run beside the main one, and wait beside it on a loaded
        // machine), so the sum may pass the life a little (a loaded run: 1,207 ms for 968), never
        // by a multiple, as a wrong field or unit would
        const [burnStart, end] = lived[i]!;
        expect(onCpu + waited).toBeGreaterThan(0.8 * (end - burnStart) - 30);
        expect(onCpu + waited).toBeLessThan(2 * end + 100);
      });
      // count × 300 ms of CPU on count − 1 cores: somebody waited
      const waitedAll: number = support.runQueueMsOf(burners.map((c) => c.pid));
      expect(waitedAll).toBeGreaterThanOrEqual(100);
    } finally {
      for (const c of burners) c.kill('SIGKILL');
    }
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
    // the generator's longest stall beyond its sampling interval: a real figure, not a second
    expect(r.ownDelayMaxMs).toBeGreaterThanOrEqual(0);
    expect(r.ownDelayMaxMs).toBeLessThan(1_000);
  });
});
