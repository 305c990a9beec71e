#!/usr/bin/env node
// Runs the whole stack on this machine without Docker: infrastructure (deploy/local/infra.sh), the five
// services and the gateway as child processes with prefixed logs. Ctrl-C stops everything it started.
// Used by `npm start`, and by the end-to-end test through startStack().
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { startMailSink } = require('./mail-sink');
const { startPushSink } = require('./push-sink');
const { heapArgs } = require('./container-memory');

const ROOT = path.resolve(__dirname, '../..');
const DEPLOYABLES = [
  ['identity', 'services/identity'],
  ['flashcards', 'services/flashcards'],
  ['subscriptions', 'services/subscriptions'],
  ['ai', 'services/ai'],
  ['notifications', 'services/notifications'],
  ['gateway', 'gateway'],
];
const COLORS = [36, 32, 33, 35, 34, 37];

function prefixLines(stream, label, color, out) {
  readline
    .createInterface({ input: stream })
    .on('line', (line) => out.write(`\x1b[${color}m[${label}]\x1b[0m ${line}\n`));
}

async function waitReady(url, timeoutMs, until) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !until.gaveUp) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`stack not ready after ${timeoutMs} ms (${url})`);
}

/** Starts infrastructure, services and gateway; resolves once the gateway reports every part healthy. */
async function startStack({
  env = {},
  infra = true,
  quiet = false,
  readyTimeoutMs = 90_000,
  mailSink = true,
  pushSink = true,
  // each process with the heap its container gives it (the overload bench judges peaks against the limits)
  containerHeaps = false,
} = {}) {
  // the launcher runs a development stack unless told otherwise: services refuse to start without NODE_ENV
  const fullEnv = { NODE_ENV: 'development', ...process.env, ...env };
  // read before anything starts: a missing heap setting must not leave sinks or infrastructure behind
  const nodeArgs = Object.fromEntries(
    DEPLOYABLES.map(([name]) => [name, containerHeaps ? heapArgs(name) : []]),
  );
  /** Parts this launcher starts itself; Ctrl-C stops only those, never infrastructure that was already up. */
  let startedInfra = [];
  if (infra) {
    const before = spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'status'], {
      env: fullEnv,
      encoding: 'utf8',
    });
    startedInfra = [...(before.stdout ?? '').matchAll(/^(\w+): down$/gm)].map((m) => m[1]);
    const r = spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'up'], {
      env: fullEnv,
      stdio: quiet ? 'pipe' : 'inherit',
    });
    if (r.status !== 0) throw new Error(`infrastructure failed to start: ${r.stderr ?? ''}`);
  }
  // e-mails of the local stack go to a sink that prints them (unless SMTP points elsewhere or the port is taken)
  const smtpHost = fullEnv.SMTP_HOST ?? '127.0.0.1';
  const sink =
    mailSink && ['127.0.0.1', 'localhost'].includes(smtpHost)
      ? await startMailSink({
          port: Number(fullEnv.SMTP_PORT ?? 1025),
          onMail: (m) =>
            !quiet &&
            console.log(
              `\x1b[35m[mail]\x1b[0m to ${m.to}: ${m.subject}${m.links.map((l) => `\n       ${l}`).join('')}`,
            ),
        })
      : undefined;
  if (mailSink && !sink && !quiet)
    console.log('[mail] SMTP port in use: e-mails go to the server already there');
  // pushes of a provider without credentials go to a sink that prints them (unless it points elsewhere)
  const pushUrl = new URL(fullEnv.PUSH_SINK_URL ?? 'http://127.0.0.1:1026/push');
  const pushes =
    pushSink && ['127.0.0.1', 'localhost'].includes(pushUrl.hostname)
      ? await startPushSink({
          port: Number(pushUrl.port || 80),
          onPush: (p) => !quiet && console.log(`\x1b[35m[push]\x1b[0m to ${p.to}: ${p.text}`),
        })
      : undefined;
  if (pushSink && !pushes && !quiet)
    console.log('[push] push sink port in use: pushes go to the sink already there');
  // quiet: each process writes its log straight to a file of its own, so the caller (the overload
  // bench's load generator, whose clock times every answer) spends no CPU on them, and a process
  // that exits during start-up is reported with its last lines; removed by stop()
  const logDir = quiet ? fs.mkdtempSync(path.join(os.tmpdir(), 'lingua-stack-')) : undefined;
  const logFile = (name) => path.join(logDir, `${name}.log`);
  const children = DEPLOYABLES.map(([name, dir], i) => {
    const log = logDir && fs.openSync(logFile(name), 'a');
    const child = spawn(process.execPath, [...nodeArgs[name], 'dist/main.js'], {
      cwd: path.join(ROOT, dir),
      env: fullEnv,
      stdio: log === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', log, log],
    });
    if (log !== undefined) fs.closeSync(log);
    // The edge keeps its CPU: on one machine the services (and the database, see infra.sh) run at a
    // lower priority, as separate pods with their own CPU would, so that under overload the gateway
    // still answers the excess at once instead of waiting behind the work it admitted.
    if (name !== 'gateway' && child.pid !== undefined)
      os.setPriority(child.pid, Number(fullEnv.LINGUA_BACKEND_NICE ?? 5));
    if (!quiet) {
      prefixLines(child.stdout, name, COLORS[i], process.stdout);
      prefixLines(child.stderr, name, COLORS[i], process.stderr);
    }
    return { name, child };
  });
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await Promise.all(
      children.map(({ child }) =>
        child.exitCode !== null || child.signalCode !== null
          ? undefined
          : new Promise((resolve) => {
              const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
              child.once('exit', () => (clearTimeout(kill), resolve()));
              child.kill('SIGTERM');
            }),
      ),
    );
    await sink?.close(); // after the services: notifications may still be sending
    await pushes?.close();
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  };
  const lastLines = (name) => {
    try {
      return `; its last log lines:\n${fs.readFileSync(logFile(name), 'utf8').trimEnd().split('\n').slice(-20).join('\n')}`;
    } catch {
      return '';
    }
  };
  const crashed = new Promise((_, reject) => {
    for (const { name, child } of children)
      child.once(
        'exit',
        (code, signal) =>
          !stopping &&
          reject(
            new Error(`${name} exited (${signal ?? code}) during start-up${logDir ? lastLines(name) : ''}`),
          ),
      );
  });
  crashed.catch(() => undefined);
  const url = `http://127.0.0.1:${fullEnv.GATEWAY_PORT ?? 8080}`;
  const wait = { gaveUp: false };
  try {
    await Promise.race([waitReady(`${url}/health`, readyTimeoutMs, wait), crashed]);
  } catch (err) {
    wait.gaveUp = true; // a crash ends the wait for readiness too
    await stop();
    throw err;
  }
  return { url, children, stop, startedInfra, mails: sink?.mails, pushes: pushes?.pushes };
}

module.exports = { startStack };

/**
 * `npm start` is the development setting (spec, Authentication 13): Group B answers anonymous callers
 * as the one fixed dev user, unless the variable is given or NODE_ENV is production (where flashcards
 * refuses the flag).
 */
function developmentEnv(env = process.env) {
  const dev = {};
  if (env.FLASHCARDS_DEV_ANONYMOUS_USER === undefined && env.NODE_ENV !== 'production')
    dev.FLASHCARDS_DEV_ANONYMOUS_USER = 'true';
  return dev;
}

module.exports.developmentEnv = developmentEnv;

if (require.main === module) {
  let prometheus;
  startStack({ env: developmentEnv() })
    .then(async (stack) => {
      // LINGUA_PROMETHEUS=1: a local Prometheus scraping every process, with the rules and alerts
      if (process.env.LINGUA_PROMETHEUS === '1') {
        const { startLocalPrometheus } = require('./prometheus');
        prometheus = await startLocalPrometheus(process.env).catch((err) => {
          console.error(`prometheus not started: ${err.message}`);
          return undefined;
        });
      }
      console.log(
        `\nLingua is ready: ${stack.url}  (health: ${stack.url}/api/health/detailed). Ctrl-C stops everything.\n` +
          (prometheus ? `Prometheus: ${prometheus.url}  (targets: ${prometheus.url}/targets)\n` : '') +
          ((process.env.FLASHCARDS_DEV_ANONYMOUS_USER ?? developmentEnv().FLASHCARDS_DEV_ANONYMOUS_USER) ===
          'true'
            ? 'Development setting: Group B (/api/flashcards, /api/study) without a token acts as the dev user.\n'
            : ''),
      );
      let down = false;
      const shutdown = async () => {
        if (down) return;
        down = true;
        console.log('\nstopping services...');
        await prometheus?.stop();
        await stack.stop();
        if (stack.startedInfra.length > 0)
          spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'down', ...stack.startedInfra], {
            stdio: 'inherit',
          });
        process.exit(0);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
      for (const { name, child } of stack.children)
        child.once('exit', (code) => {
          if (down) return;
          console.error(`${name} exited with ${code}; stopping the stack`);
          void shutdown().then(() => process.exit(1));
        });
    })
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
