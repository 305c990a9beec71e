import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The kernel's range for outgoing connections' local ports (Linux), where freePort never looks. */
export function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (lo && hi) return [lo, hi];
  } catch {
    /* not Linux */
  }
  return [32768, 60999];
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** How many parts the test ports are cut into: one per jest worker (more than any run uses). */
const PORT_SLICES = 8;

/**
 * The ports this process may hand out: below the ephemeral range, and within it the part of this
 * jest worker (JEST_WORKER_ID), so parallel workers never pick the same port. A port checked free
 * is bound only later, by a process started after; two workers picking from one range collided
 * (seen with three workers: a stack's process found its port taken, and a NATS server restarted on
 * its port found another worker's server there).
 */
function portRange(): [number, number] {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = Math.max(low + 1000 * PORT_SLICES, ephemeralLow);
  // a jest worker's test file (its global `expect`), not a process it started that inherits the
  // variable: such a process (a bench script) keeps the whole range, clear of the worker's part
  const worker = 'expect' in globalThis ? Number(process.env.JEST_WORKER_ID) : NaN;
  if (!Number.isInteger(worker) || worker < 1) return [low, high];
  const size = Math.floor((high - low) / PORT_SLICES);
  const from = low + ((worker - 1) % PORT_SLICES) * size;
  return [from, from + size];
}

/**
 * Ports this process handed out: not handed out again, so a process stopped for a while (a
 * restartable server) finds its port when it starts again. Kept on the global, which every copy of
 * this module in a test file shares (the source through @lingua/testing, the build that
 * deploy/local's helpers require); jest gives each test file a global of its own.
 */
const HANDED_OUT = Symbol.for('lingua.testing.handedOutPorts');
const handedOut: Set<number> = ((globalThis as Record<symbol, Set<number> | undefined>)[HANDED_OUT] ??=
  new Set<number>());

/** The first of `count` consecutive ports that are free and not handed out before, or undefined. */
async function takeRun(count: number): Promise<number | undefined> {
  const [low, high] = portRange();
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((p) => handedOut.has(p))) continue;
    if (!(await Promise.all(ports.map(bindable))).every(Boolean)) continue;
    for (const p of ports) handedOut.add(p);
    return base;
  }
  return undefined;
}

/**
 * A port a test may give a process to listen on. Taken at random below the ephemeral range: a
 * port the kernel handed out (`listen(0)`) is soon handed out again as the local port of some
 * outgoing connection (the suite opens thousands to Redis, NATS and the database), and a process
 * told to listen there later finds it taken (seen: EADDRINUSE in the deployment contract test).
 */
export async function freePort(): Promise<number> {
  const port = await takeRun(1);
  if (port !== undefined) return port;
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}

/** The first of `count` consecutive free ports, below the ephemeral range (see freePort). */
export async function freePortRun(count: number): Promise<number> {
  const base = await takeRun(count);
  if (base === undefined) throw new Error(`no run of ${count} free ports found`);
  return base;
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/**
 * A server process of a test's own, on a free port, with a data directory that survives stop/start
 * (like a real restart), for tests that take a dependency away and bring it back.
 */
export async function startRestartableProcess(
  binary: string,
  args: (port: number, dataDir: string) => string[],
  startTimeoutMs = 15_000,
) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), `lingua-${path.basename(binary)}-`));
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = spawn(binary, args(port, dataDir), { stdio: 'ignore' });
    await waitForPort(port, startTimeoutMs);
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  await start();
  return {
    port,
    start,
    stop,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A Redis server of a test's own (no persistence), for tests that stop and restart Redis. */
export const startPrivateRedis = () =>
  startRestartableProcess('redis-server', (port, dir) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    dir,
  ]);
