// The default destination: stdout written in batches (logger.ts, stdoutInBatches). A real child
// process logs through the built library; the test reads its stdout as a log shipper would.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from '@lingua/testing';

const DIST = path.resolve(__dirname, '../dist/index.js');

/** A process that logs `count` lines, then (unless `stay`) exits with process.exit as runMain does. */
function logging(script: string, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['-e', `const { createLogger } = require(${JSON.stringify(DIST)});\n${script}`],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const state = { out: '', exited: false };
  child.stdout.on('data', (d) => (state.out += d));
  child.on('close', () => (state.exited = true)); // after its stdout ended
  const lines = () =>
    state.out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; n: number });
  return { child, state, lines };
}

describe('logger: stdout in batches', () => {
  it('When a process logs a few lines and keeps running, Then they reach stdout within the flush interval, whole', async () => {
    const p = logging(
      `const log = createLogger('svc'); for (let n = 0; n < 3; n++) log.info({ n }, 'line'); setInterval(() => {}, 1000);`,
    );
    try {
      await waitFor(() => expect(p.lines()).toHaveLength(3), { timeoutMs: 5_000 });
      expect(p.lines().map((l) => l.n)).toEqual([0, 1, 2]);
    } finally {
      p.child.kill('SIGKILL');
    }
  });

  it('When a process logs many lines through two loggers and exits at once, Then every line is on stdout, in order and whole', async () => {
    const p = logging(
      `const log = createLogger('svc'); const other = createLogger('svc'); for (let n = 0; n < 2000; n++) (n % 2 ? other : log).info({ n, pad: 'x'.repeat(100) }, 'line'); process.exit(0);`,
    );
    await waitFor(() => expect(p.state.exited).toBe(true), { timeoutMs: 10_000 });
    const ns = p.lines().map((l) => l.n);
    expect(ns).toHaveLength(2000);
    expect(ns).toEqual([...ns].sort((a, b) => a - b));
  });

  it('When LOG_BUFFER_BYTES is not a size, Then the logger refuses to start', async () => {
    const p = logging(
      `try { createLogger('svc'); } catch (e) { console.log(JSON.stringify({ msg: e.message, n: 0 })); }`,
      {
        LOG_BUFFER_BYTES: 'lots',
      },
    );
    await waitFor(() => expect(p.state.exited).toBe(true), { timeoutMs: 5_000 });
    expect(p.lines()[0]!.msg).toMatch(/LOG_BUFFER_BYTES must be a whole number of bytes from 0 to 16383/);
  });
});
