// Plumbing shared by the benchmarks: free ports, a built service in its own process, percentiles.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const readline = require('node:readline');

// below the kernel's ephemeral range: a port from listen(0) is soon the local port of an outgoing
// connection, and the service told to listen there fails (seen: identity's gRPC port, EADDRINUSE)
const { freePort, freePortRun } = require('../libs/testing/dist');

/**
 * Runs `script` (a service's dist/main.js, or a bench script in service mode) in its own process
 * with `env`, and resolves once `${url}${healthPath}` answers 200.
 */
async function startProcess({
  script,
  args = [],
  env,
  port,
  name,
  healthPath = '/health/ready',
  stdio,
  tries = 300,
}) {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: stdio ?? ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < tries; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}${healthPath}`, { signal: AbortSignal.timeout(2_000) })).ok)
        return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`${name} did not become ready`);
}

/**
 * Starts `node bench/servers.js <kind> ...args` (one benchmark server in its own process):
 * { child, ready }, where `ready` resolves with the URL it prints once listening.
 */
function startBenchServer(kind, args = [], execArgv = []) {
  const child = spawn(process.execPath, [...execArgv, path.join(__dirname, 'servers.js'), kind, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve(line.slice(6));
    });
  });
  return { child, ready };
}

/** The p-th percentile of an ascending array. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The median of an array of numbers (the upper one of the two middle values for an even count). */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Pids of the processes whose command line contains `needle` (Linux /proc; [] elsewhere). */
function pidsMatching(needle) {
  try {
    return fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
      .filter((d) => {
        try {
          return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle);
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/** The sum of `parse` over the procfs files that could be read; null when none could (gone, or not Linux). */
function sumOverProcFiles(files, parse) {
  let sum = 0;
  let read = 0;
  for (const file of files) {
    try {
      sum += parse(fs.readFileSync(file, 'utf8'));
      read++;
    } catch {
      /* the process or thread is gone, or this is not Linux */
    }
  }
  return read === 0 ? null : sum;
}

/** CPU time (user + system) of the processes so far, in ms; null when none could be read (no /proc). */
function cpuMsOf(pids) {
  const ticks = sumOverProcFiles(
    pids.map((pid) => `/proc/${pid}/stat`),
    (text) => {
      const f = text.split(') ')[1].split(' ');
      return Number(f[11]) + Number(f[12]);
    },
  );
  return ticks === null ? null : ticks * 10; // USER_HZ is 100 on Linux
}

/** The sum of one field of /proc/<pid>/task/<tid>/schedstat over every thread of the processes, in ms; null when none could be read. */
function schedstatMsOf(pids, field) {
  const files = pids.flatMap((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/task`).map((tid) => `/proc/${pid}/task/${tid}/schedstat`);
    } catch {
      return []; // gone or not Linux
    }
  });
  const ns = sumOverProcFiles(files, (text) => Number(text.split(' ')[field]));
  return ns === null ? null : ns / 1e6;
}

/**
 * Time the processes' threads have spent runnable but waiting for a CPU so far, in ms (the second
 * field of schedstat); null when none could be read. On a machine with fewer cores than busy
 * processes this is where latency goes that no profile of the process shows.
 */
const runQueueMsOf = (pids) => schedstatMsOf(pids, 1);

/**
 * Time the processes' threads have spent on a CPU so far, in ms (the first field of schedstat: the
 * scheduler's own clock, in ns). Exact, where cpuMsOf counts 10 ms ticks: for a few ms of work.
 */
const onCpuMsOf = (pids) => schedstatMsOf(pids, 0);

/**
 * How often the process's main thread has gone to sleep so far (voluntary context switches in
 * /proc/<pid>/status, main thread only): for a Node server mostly its event loop blocking in epoll
 * until woken again (also waits for GC helper threads, blocking file calls, a full stdout pipe), so
 * the difference over a window counts its wake-ups. null when unreadable.
 */
function sleepsOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
  } catch {
    return null; // gone or not Linux
  }
}

/** The machine's TCP sockets (/proc/net/tcp and tcp6): { localPort, remotePort, listening, inode }; [] off Linux. */
function tcpSockets() {
  const sockets = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // not Linux, or no IPv6
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const port = (address) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      sockets.push({ localPort: port(f[1]), remotePort: port(f[2]), listening: f[3] === '0A', inode: f[9] });
    }
  }
  return sockets;
}

/** Inodes of the sockets a process holds open (/proc/<pid>/fd); empty when it is gone or unreadable. */
function socketInodesOf(pid) {
  const inodes = new Set();
  let fds;
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes; // gone, not ours to read, or not Linux
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  return inodes;
}

/** Pid of the process listening on TCP `port` (procfs); undefined when none is found or this is not Linux. */
function pidListeningOn(port) {
  const wanted = new Set(
    tcpSockets()
      .filter((s) => s.listening && s.localPort === port)
      .map((s) => s.inode),
  );
  if (wanted.size === 0) return undefined;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    for (const inode of socketInodesOf(d)) if (wanted.has(inode)) return Number(d);
  }
  return undefined;
}

/** Pids of a process's direct children (/proc/<pid>/task/<tid>/children); [] when gone or not Linux. */
function childPids(pid) {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Waits until the local FerretDB has been nearly idle for a second (at most `maxMs`). A service's
 * start-up work on it (index checks, the outbox relay's first safety-net scan, which reads every
 * document on FerretDB v1: about 15 s over 111k cards) would otherwise land inside the measurement.
 * Returns how long it waited, in ms.
 */
async function waitForQuietDatabase(maxMs = 60_000, needle = 'ferretdb') {
  const pids = pidsMatching(needle);
  const started = Date.now();
  if (pids.length === 0) return 0;
  let last = cpuMsOf(pids);
  while (Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = cpuMsOf(pids);
    if (now - last < 100) break; // under 10 % of a core
    last = now;
  }
  return Date.now() - started;
}

/** How often fixedRate samples the generator's own event-loop delay, ms. */
const OWN_DELAY_SAMPLE_MS = 10;

/**
 * Open-loop load: `rate` requests per second to `url` for `seconds`, over at most `connections`
 * keep-alive connections (undici Pool), whatever the server's pace. Unlike autocannon's closed loop,
 * a slow answer does not delay the next request. Each latency runs from the moment the request is
 * handed to the pool, so time spent waiting for a free connection counts; the generator's own timer
 * lateness does not (timers here wake up to a few ms late, which would swamp sub-ms differences).
 * Resolves with { sent, ok, errors, latencies (ms, ascending), slowest (the slowest answer per
 * 100 ms of the window, ms), ownDelayMaxMs (the longest the generator's own event loop stalled) }.
 */
async function fixedRate({ url, headers = {}, rate, seconds, connections = 50 }) {
  const { Pool } = require('undici');
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const latencies = [];
  // the slowest answer per 100 ms of the window, by when the call left: one stall shows as one run of slow slices
  const slowest = new Array(Math.ceil(seconds * 10)).fill(0);
  let ok = 0;
  let errors = 0;
  // the load generator's own stalls would show as latency too: its event-loop delay tells them apart
  // (sampled every 10 ms: a 1 ms timer would cost the generator ~5 % of a core, see openLoop)
  const ownDelay = monitorEventLoopDelay({ resolution: OWN_DELAY_SAMPLE_MS });
  ownDelay.enable();
  const began = performance.now();
  const one = async () => {
    const start = performance.now();
    try {
      const r = await pool.request({ path: target.pathname + target.search, method: 'GET', headers });
      await r.body.dump();
      if (r.statusCode < 400) ok++;
      else errors++;
    } catch {
      errors++;
    }
    const ms = performance.now() - start;
    latencies.push(ms);
    const slice = Math.min(slowest.length - 1, Math.floor((start - began) / 100));
    slowest[slice] = Math.max(slowest[slice], ms);
  };
  const { sent, settled } = await openLoop({ rate, seconds, fire: one });
  await settled;
  ownDelay.disable();
  await pool.close();
  return {
    sent,
    ok,
    errors,
    latencies: latencies.sort((a, b) => a - b),
    slowest,
    // the histogram holds whole intervals between samples: the stall is what exceeds the interval
    ownDelayMaxMs: Math.max(0, ownDelay.max / 1e6 - OWN_DELAY_SAMPLE_MS),
  };
}

/**
 * The open-loop clock: calls `fire(i)` `rate` times a second for `seconds`, on schedule whatever the
 * answers (a slow answer never delays the next call). Each timer tick issues every call due by now,
 * since timers wake up late. Resolves once the last call has been issued, with `settled`, a promise of all
 * the calls' results, and `sent`.
 */
async function openLoop({ rate, seconds, fire }) {
  const total = Math.round(rate * seconds);
  const inFlight = [];
  const started = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      // every call due by now (timers fire late, so several may be due at once)
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      for (; sent < due; sent++) inFlight.push(fire(sent));
      // sleep until the next call is due (at least 1 ms): a busy 1 ms timer alone costs ~5 % of a core
      const next = started + ((sent + 1) / rate) * 1000 - performance.now();
      if (sent < total) setTimeout(tick, Math.max(1, Math.floor(next)));
      else resolve();
    };
    tick();
  });
  return { sent, settled: Promise.all(inFlight) };
}

/** The wall-clock time ("HH:MM") of `at` in the IANA `zone`: a user's reminder time for that instant. */
const localTime = (at, zone) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);

/** `v` to `digits` decimals; null for a figure that was not measured (not a number). */
const round = (v, digits) => (typeof v === 'number' ? Math.round(v * 10 ** digits) / 10 ** digits : null);

/** Writes `doc` as JSON in the repository's style, so `npm run lint` (prettier --check) stays clean after a run. */
async function writeJson(file, doc) {
  const prettier = require('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, await prettier.format(JSON.stringify(doc), { ...options, parser: 'json' }));
}

/**
 * Writes a bench's figures to bench/results/<name>.json (BENCH_RESULT: another file) with the date,
 * the commit and the machine; `npm run bench:report` renders the tables of bench/README.md from
 * these files, so a run's figures are written in one place.
 */
async function writeResult(name, figures) {
  const os = require('node:os');
  const file = process.env.BENCH_RESULT ?? path.join(__dirname, 'results', `${name}.json`);
  let commit;
  try {
    commit = require('node:child_process')
      .execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8' })
      .trim();
  } catch {
    commit = undefined; // not a git checkout
  }
  await writeJson(file, {
    bench: name,
    date: new Date().toISOString(),
    commit,
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => round(l, 2)) },
    ...figures,
  });
  console.log(`figures written to ${path.relative(process.cwd(), file)} (npm run bench:report renders them)`);
}

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM); 0 when gone. */
function statusKb(pid, field) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

module.exports = {
  round,
  writeJson,
  writeResult,
  freePort,
  localTime,
  pidsMatching,
  freePortRun,
  startProcess,
  startBenchServer,
  percentile,
  median,
  waitForQuietDatabase,
  cpuMsOf,
  runQueueMsOf,
  onCpuMsOf,
  sleepsOf,
  tcpSockets,
  socketInodesOf,
  pidListeningOn,
  childPids,
  fixedRate,
  openLoop,
  statusKb,
};
