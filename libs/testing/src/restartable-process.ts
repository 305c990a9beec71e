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

/**
 * A port a test may give a process to listen on. Taken at random below the ephemeral range: a
 * port the kernel handed out (`listen(0)`) is soon handed out again as the local port of some
 * outgoing connection (the suite opens thousands to Redis, NATS and the database), and a process
 * told to listen there later finds it taken (seen: EADDRINUSE in the deployment contract test).
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = Math.max(low + 1000, ephemeralLow - 1);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await bindable(port)) return port;
  }
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
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = Math.max(low + 1000, ephemeralLow - count);
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low));
    const free = await Promise.all(Array.from({ length: count }, (_, i) => bindable(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no run of ${count} free ports found`);
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
