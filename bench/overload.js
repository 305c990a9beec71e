#!/usr/bin/env node
// Open-loop overload benchmark of the real app mix through the gateway, on the local database
// (FerretDB 2 on PostgreSQL + DocumentDB; the FerretDB v1 engines it once compared are gone, ADR 0010).
// It:
//   1. starts a FerretDB of its own on a free port with deploy/local/infra.sh (FERRETDB_PORT,
//      LINGUA_DATA_DIR = a temp dir; it shares the local PostgreSQL cluster),
//   2. starts the whole stack (deploy/local/start-stack.js, quiet, free ports, its own database names,
//      NATS stream and rate-limit prefix, MONGO_URL = that FerretDB), so a running `npm start` is untouched,
//   3. registers BENCH_USERS users through the API, each on its own X-Forwarded-For, with a few cards,
//   4. finds the capacity (step search: the highest rate where 2xx goodput >= 95 % of the offered rate
//      and the p95 of 2xx answers <= BENCH_CAPACITY_P95_MS), unless BENCH_CAPACITY is given,
//   5. offers 0.5x, 1x and 2x that capacity for BENCH_SECONDS each (open loop: a timer issues requests
//      whatever the answers), each request from a random user, one of eight app calls at random,
//   6. prints per phase: offered rate, goodput, shed (503 SRV002) and other errors, timeouts, p50/p95/p99
//      of 2xx per endpoint, p99 of shed answers, the longest wait, and the time until the stack's
//      processes (services, gateway, FerretDB, its PostgreSQL backends) are idle again after the load,
//      then stops everything it started. A table across engines and the targets at 2x come last.
// All load goes to 127.0.0.1 and is bounded in count and time. Needs `npm run build`, NATS and Redis
// (started by infra.sh when missing, and stopped again). Ctrl-C stops everything the bench started.
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Pool } = require('undici');
const { startStack } = require('../deploy/local/start-stack');
const { memoryLimits, overLimits } = require('./soak-memory');
const {
  childPids,
  cpuMsOf,
  freePort,
  freePortRun,
  openLoop,
  percentile,
  pidListeningOn,
  round,
  socketInodesOf,
  statusKb,
  tcpSockets,
  writeResult,
} = require('./support');

const ROOT = path.resolve(__dirname, '..');
const INFRA = path.join(ROOT, 'deploy/local/infra.sh');
const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
/** The one local engine (the results keep its name). */
const ENGINES = ['documentdb'];
const USERS = num('BENCH_USERS', 80);
const CARDS_PER_USER = num('BENCH_CARDS', 5);
const SECONDS = num('BENCH_SECONDS', 30);
/** BENCH_CAPACITY: a fixed rate (`60`) instead of the step search (`documentdb:60` is accepted too). */
function fixedCapacity(engine) {
  const spec = process.env.BENCH_CAPACITY;
  if (!spec) return undefined;
  if (/^\d+(\.\d+)?$/.test(spec.trim())) return Number(spec);
  const pair = spec.split(',').find((p) => p.split(':')[0].trim() === engine);
  return pair ? Number(pair.split(':')[1]) : undefined;
}
const STEP_SECONDS = num('BENCH_STEP_SECONDS', 5);
const START_RATE = num('BENCH_START_RATE', 10);
const MAX_RATE = num('BENCH_MAX_RATE', 2000);
const CAPACITY_P95_MS = num('BENCH_CAPACITY_P95_MS', 200); // the spec's target: 95 % within 200 ms
const CONNECTIONS = num('BENCH_CONNECTIONS', 512);
const TIMEOUT_MS = num('BENCH_TIMEOUT_MS', 10_000);
const IDLE_MAX_S = num('BENCH_IDLE_MAX_S', 60);
/** Idle: the stack's processes together under this share of one core for a whole second. */
const IDLE_CORE_SHARE = num('BENCH_IDLE_CORE_PCT', 5) / 100;
const PG_PORT = Number(process.env.LINGUA_PG_PORT ?? 55432);
const PHASES = [
  ['0.5x', 0.5],
  ['1x', 1],
  ['2x', 2],
];
const TARGETS = { acceptedP99Ms: 250, shedP99Ms: 20, idleS: 5 };
/** Fixed names, so a run removes what an interrupted one left behind (one run at a time). */
const DB_PREFIX = 'bench_overload_';
const SERVICES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
const STREAM = 'BENCH_OVERLOAD';
/** The order in which the engines are compared: each column against the one before. */
const STEP_ORDER = ['documentdb'];
const RUN = crypto.randomBytes(3).toString('hex');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (v, digits = 0) => (v === undefined || v === null || Number.isNaN(v) ? '–' : v.toFixed(digits));

// ---- everything the bench starts is stopped again, also on Ctrl-C or an error ----------------------

/** Undo steps, run last-in first-out. */
const cleanups = [];
let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const [what, undo] = cleanups.pop();
      try {
        await undo();
      } catch (err) {
        console.error(`could not ${what}: ${err.message}`);
      }
    }
  })();
  return cleaning;
}
function infra(args, env) {
  const r = spawnSync('bash', [INFRA, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`infra.sh ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/**
 * A FerretDB of the bench's own on a free port, started by infra.sh with the engine's settings and a
 * temp data dir; whatever infra.sh had to start besides (NATS, Redis, PostgreSQL when down) is stopped
 * again with it.
 */
async function startDatabase(engine) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lingua-overload-${engine}-`));
  cleanups.push([`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true })]);
  const port = await freePort();
  const env = { ...process.env, FERRETDB_PORT: String(port), LINGUA_DATA_DIR: dir };
  delete env.LINGUA_DB_ENGINE;
  delete env.MONGO_URL; // infra.sh starts no FerretDB when it is set
  // what is down now is what infra.sh starts (FerretDB on the new port at least), and what is stopped again
  const down = [...infra(['status'], env).matchAll(/^(\w+): down$/gm)].map((m) => m[1]);
  if (down.length > 0) cleanups.push([`stop ${down.join(', ')}`, () => infra(['down', ...down], env)]);
  infra(['up'], env);
  const pid = Number(fs.readFileSync(path.join(dir, 'run/ferretdb.pid'), 'utf8'));
  const description = fs.readFileSync(path.join(dir, 'run/ferretdb.engine'), 'utf8').trim();
  let postmaster;
  return {
    engine,
    description,
    url: `mongodb://127.0.0.1:${port}`,
    /** FerretDB and the PostgreSQL backends serving its connections (matched by client port). */
    pids() {
      // looked up once: it reads every process's open files (11 ms at idle), and the postmaster stays
      postmaster ??= pidListeningOn(PG_PORT);
      const sockets = socketInodesOf(pid);
      const ports = new Set(
        tcpSockets()
          .filter((s) => s.remotePort === PG_PORT && sockets.has(s.inode))
          .map((s) => String(s.localPort)),
      );
      const backends = childPids(postmaster).filter((child) => {
        try {
          const m = /\((\d+)\)/.exec(fs.readFileSync(`/proc/${child}/cmdline`, 'utf8'));
          return m !== null && ports.has(m[1]);
        } catch {
          return false;
        }
      });
      return [pid, ...backends];
    },
  };
}

/** Removes the bench's NATS streams and databases (left over from an interrupted run, or this one's). */
async function removeBenchData(db) {
  const { connect } = require('@nats-io/transport-node');
  const { jetstreamManager } = require('@nats-io/jetstream');
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', timeout: 5_000 });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of [STREAM, `${STREAM}_ACTIVITY`, `${STREAM}_DLQ`])
      await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
  const { MongoClient } = require('mongodb');
  const client = new MongoClient(db.url, { serverSelectionTimeoutMS: 5_000 });
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) if (name.startsWith(DB_PREFIX)) await client.db(name).dropDatabase();
  } catch (err) {
    throw new Error(`drop the ${DB_PREFIX}* databases (the next run drops them): ${err.message}`, {
      cause: err,
    });
  } finally {
    await client.close();
  }
}

/**
 * The whole stack on free ports, on the given database, with names and limits of its own: by default
 * the overload bench's; the journey bench passes its own database names, stream, rate-limit prefix
 * and extra settings.
 */
async function startBenchStack(
  db,
  {
    dbNames = Object.fromEntries(SERVICES.map((s) => [s, `${DB_PREFIX}${s}`])),
    stream = STREAM,
    rateLimitPrefix = 'bench:overload:rl',
    env: extra = {},
    // each process with its container's heap (the overload bench, which judges its peak RSS)
    containerHeaps = false,
  } = {},
) {
  // one run of consecutive free ports: separate random draws could give two processes the same one
  const names = ['GATEWAY', 'SMTP', ...SERVICES.flatMap((s) => [`${s}_HTTP`, `${s}_GRPC`])];
  const base = await freePortRun(names.length);
  const port = Object.fromEntries(names.map((name, i) => [name.toUpperCase(), String(base + i)]));
  const env = {
    MONGO_URL: db.url,
    GATEWAY_PORT: port.GATEWAY,
    GATEWAY_METRICS_PORT: '0',
    SMTP_PORT: port.SMTP,
    EVENTS_STREAM: stream,
    EVENTS_SUBJECT_PREFIX: stream.toLowerCase(),
    // the bench measures capacity, not the per-user hourly budgets (100/h would refuse most of the mix)
    RATE_LIMIT_FREE_PER_HOUR: '1000000000',
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: '1000000000',
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '1000000000',
    RATE_LIMIT_CATALOGUE_PREMIUM_PER_HOUR: '1000000000',
    RATE_LIMIT_PREFIX: rateLimitPrefix,
    // registration is set-up, not part of the mix
    IDENTITY_BCRYPT_COST: '4',
    FLASHCARDS_ADDR: `127.0.0.1:${port.FLASHCARDS_GRPC}`,
    SUBSCRIPTIONS_ADDR: `127.0.0.1:${port.SUBSCRIPTIONS_GRPC}`,
    IDENTITY_ADDR: `127.0.0.1:${port.IDENTITY_GRPC}`,
  };
  for (const s of SERVICES) {
    const S = s.toUpperCase();
    env[`${S}_HTTP_PORT`] = port[`${S}_HTTP`];
    env[`${S}_GRPC_PORT`] = s === 'notifications' ? '0' : port[`${S}_GRPC`];
    env[`${S}_METRICS_PORT`] = '0'; // free ports: the bench runs beside a stack on the default ones
    env[`${S}_HTTP_URL`] = `http://127.0.0.1:${port[`${S}_HTTP`]}`;
    env[`${S}_MONGO_DB`] = dbNames[s];
  }
  Object.assign(env, extra);
  const stack = await startStack({ env, infra: false, quiet: true, readyTimeoutMs: 120_000, containerHeaps });
  cleanups.push(['stop the stack', () => stack.stop()]);
  return stack;
}

// ---- the app mix ----------------------------------------------------------------------------------

const SUBJECTS = ['I', 'She', 'My brother', 'The teacher', 'We', 'They', 'Our neighbour', 'The children'];
const VERBS = ['goes', 'have seen', 'were reading', 'buys', 'is cooking', 'walked', 'will visit', 'likes'];
const OBJECTS = ['the old library', 'a red apple', 'his friends', 'the morning news', 'a small dog'];
const PLACES = ['every day', 'near the station', 'yesterday', 'in the garden', 'after school'];
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
/** Signs each engine's sentences, so analyses cached by an earlier engine or run (24 h) are not reused. */
let sentenceTag = RUN;
let wordSeq = 0;
const newWord = () => `ovl${RUN}w${(wordSeq++).toString(36)}`;
const cardBody = () => ({
  word: newWord(),
  translation: 'Übersetzung',
  definition: 'a word created by the overload bench',
  example: 'She learns a new word every day.',
  difficultyLevel: pick(['A1', 'A2', 'B1', 'B2']),
});

/** The eight calls of the mix: name, request for a user, and what a 2xx answer teaches the bench. */
const MIX = [
  {
    name: 'create card',
    request: () => ({ method: 'POST', path: '/api/flashcards', body: cardBody() }),
    // a duplicate is a 200 with success false: not accepted
    accepted: (user, body) => {
      const parsed = JSON.parse(body);
      if (parsed.success === false) return false;
      user.cards.push(parsed.data.id);
      return true;
    },
  },
  { name: 'list due', request: () => ({ method: 'GET', path: '/api/flashcards/due?limit=20' }) },
  {
    name: 'review card',
    request: (user) => ({
      method: 'POST',
      path: `/api/flashcards/${pick(user.cards)}/review`,
      body: { confidence: pick([0, 1, 2]) },
    }),
  },
  { name: 'notifications', request: () => ({ method: 'GET', path: '/api/notifications?limit=20' }) },
  { name: 'profile', request: () => ({ method: 'GET', path: '/api/users/profile' }) },
  { name: 'stats (week)', request: () => ({ method: 'GET', path: '/api/learning/stats?period=week' }) },
  {
    name: 'ai analyze-sentence',
    // a few thousand sentences: new ones miss the 24 h analysis cache, repeats hit it
    request: () => ({
      method: 'POST',
      path: '/api/ai/analyze-sentence',
      body: {
        sentence: `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(PLACES)}, says Ovl${sentenceTag}.`,
        language: 'en',
      },
    }),
  },
  { name: 'subscription status', request: () => ({ method: 'GET', path: '/api/v1/subscriptions/status' }) },
];

/**
 * Load shedding answers 503 with SRV002 in the body (Group C; SERVICE_UNAVAILABLE is its Group A name)
 * and Retry-After. Group B (/api/flashcards) errors are plain text, so there a 503 with Retry-After counts.
 */
function isShed(status, headers, text) {
  if (status !== 503) return false;
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  const code = body?.error?.code;
  if (code === 'SRV002' || code === 'SERVICE_UNAVAILABLE') return true;
  return typeof body?.error === 'string' && headers['retry-after'] !== undefined;
}

/** One request of the mix; never rejects. Latency runs from the hand-off to the connection pool. */
async function call(pool, user, op) {
  const { method, path: p, body } = op.request(user);
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  const started = performance.now();
  let status = 0;
  let kind;
  try {
    const res = await pool.request({
      method,
      path: p,
      headers: body ? user.jsonHeaders : user.headers,
      body: body && JSON.stringify(body),
      signal,
    });
    const text = await res.body.text();
    status = res.statusCode;
    if (status >= 200 && status < 300) kind = !op.accepted || op.accepted(user, text) ? 'ok' : 'error';
    else kind = isShed(status, res.headers, text) ? 'shed' : 'error';
  } catch {
    kind = signal.aborted ? 'timeout' : 'error';
  }
  const end = performance.now();
  return { op: op.name, status, kind, ms: end - started, end };
}

/** Registers the users through the API (each on its own client address) and gives each a few cards. */
async function createUsers(pool) {
  const users = [];
  const one = async (i) => {
    const xff = `198.18.${i >> 8}.${i & 255}`;
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/auth/register',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
      body: JSON.stringify({
        email: `overload-${RUN}-${i}@example.com`,
        password: 'Overload-bench-1',
        username: `ovl_${RUN}_${i}`,
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`register answered ${res.statusCode}: ${text.slice(0, 300)}`);
    const token = JSON.parse(text).data.accessToken;
    const headers = { authorization: `Bearer ${token}`, 'x-forwarded-for': xff };
    const user = { headers, jsonHeaders: { ...headers, 'content-type': 'application/json' }, cards: [] };
    for (let c = 0; c < CARDS_PER_USER; c++) {
      // as an app does: a shed request is tried again after its Retry-After (a few times)
      let r = await call(pool, user, MIX[0]);
      for (let retry = 0; r.kind === 'shed' && retry < 5; retry++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        r = await call(pool, user, MIX[0]);
      }
      if (r.kind !== 'ok') throw new Error(`creating a card answered ${r.status} (${r.kind})`);
    }
    users[i] = user;
  };
  const next = { i: 0 };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next.i < USERS) await one(next.i++);
    }),
  );
  return users;
}

// ---- measuring ------------------------------------------------------------------------------------

/**
 * CPU time of a changing set of processes since the meter was made, in ms: each process counts from
 * when it is first seen, and one that exits keeps what it had used. `pidsOf` is asked again each second.
 */
function cpuMeter(pidsOf) {
  const last = new Map();
  let total = 0;
  let pids = [];
  let listedAt = -Infinity;
  let started = false;
  const read = () => {
    if (performance.now() - listedAt > 1_000) {
      pids = pidsOf();
      listedAt = performance.now();
    }
    for (const pid of pids) {
      const ms = cpuMsOf([pid]);
      if (ms === null) continue;
      // a process first seen after the meter started was born since (a PostgreSQL backend of a new
      // pooled connection): all its CPU is the window's, not a baseline to subtract
      if (last.has(pid)) total += ms - last.get(pid);
      else if (started) total += ms;
      last.set(pid, ms);
    }
    return total;
  };
  read();
  started = true;
  return { read };
}

/** The stack's own CPU with no load (a share of one core), measured after set-up; 0 until then. */
let resting = 0;

/**
 * Seconds from now until the processes have been idle (under their resting level plus IDLE_CORE_SHARE
 * of a core) for a whole second, counted to the start of that second; null when that does not happen
 * within `maxS`.
 */
async function timeToIdle(pidsOf, maxS = IDLE_MAX_S) {
  const meter = cpuMeter(pidsOf);
  const started = performance.now();
  const samples = [[started, 0]];
  for (;;) {
    await sleep(100);
    const now = performance.now();
    samples.push([now, meter.read()]);
    // the latest sample at least 1 s back: the window from it to now
    let j = samples.length - 1;
    while (j > 0 && now - samples[j][0] < 1_000) j--;
    const [t0, cpu0] = samples[j];
    if (now - t0 >= 1_000 && samples.at(-1)[1] - cpu0 < (resting + IDLE_CORE_SHARE) * (now - t0))
      return (t0 - started) / 1000;
    if (now - started > maxS * 1000) return null;
  }
}

/** The share of one core the processes use over `ms`. */
async function coreShare(pidsOf, ms) {
  const meter = cpuMeter(pidsOf);
  const started = performance.now();
  await sleep(ms);
  return meter.read() / (performance.now() - started);
}

/** One window of open-loop load: `rate` requests a second for `seconds`, then (optionally) the time to idle. */
async function runLoad({ pool, users, rate, seconds, stackPids, measureIdle }) {
  const meter = cpuMeter(stackPids);
  const ownCpu = process.cpuUsage();
  let queueMax = 0;
  const watchQueue = setInterval(() => (queueMax = Math.max(queueMax, pool.stats.queued)), 100);
  const started = performance.now();
  const { sent, settled } = await openLoop({
    rate,
    seconds,
    fire: () => call(pool, pick(users), pick(MIX)),
  });
  const loadMs = performance.now() - started;
  if (cleaning) throw new Error('interrupted'); // the stack is being stopped: nothing to report
  const stackCpuMs = meter.read();
  const { user, system } = process.cpuUsage(ownCpu);
  const [results, idleS] = await Promise.all([settled, measureIdle ? timeToIdle(stackPids) : undefined]);
  clearInterval(watchQueue);
  return summarize(results, {
    rate,
    seconds: loadMs / 1000,
    sent,
    idleS,
    queueMax,
    loadEnd: started + loadMs,
    stackCores: stackCpuMs / loadMs,
    ownCore: (user + system) / 1000 / loadMs,
  });
}

function summarize(results, meta) {
  const count = (kind) => results.filter((r) => r.kind === kind).length;
  const sortedMs = (rs) => rs.map((r) => r.ms).sort((a, b) => a - b);
  const pcts = (sorted) => ({
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  });
  const ok = results.filter((r) => r.kind === 'ok');
  const otherErrors = {};
  for (const r of results.filter((x) => x.kind === 'error')) {
    const label =
      r.status === 0 ? 'network' : r.status >= 200 && r.status < 300 ? `${r.status} dup` : r.status;
    otherErrors[label] = (otherErrors[label] ?? 0) + 1;
  }
  return {
    ...meta,
    offered: meta.sent / meta.seconds,
    ok: ok.length,
    // 2xx answered while the load ran; the backlog answered after it shows in `okAfter` and the time to idle
    goodput: ok.filter((r) => r.end <= meta.loadEnd).length / meta.seconds,
    okAfter: ok.filter((r) => r.end > meta.loadEnd).length,
    shed: count('shed'),
    shedRate: count('shed') / meta.seconds,
    errors: count('error'),
    otherErrors,
    timeouts: count('timeout'),
    accepted: pcts(sortedMs(ok)),
    byOp: Object.fromEntries(MIX.map((op) => [op.name, pcts(sortedMs(ok.filter((r) => r.op === op.name)))])),
    shedP99: percentile(sortedMs(results.filter((r) => r.kind === 'shed')), 99),
    longestMs: Math.max(0, ...results.map((r) => r.ms)),
  };
}

/**
 * Step search: double from START_RATE while the rate holds, then halve the gap twice. A rate holds when
 * 2xx goodput is at least 95 % of the offered rate and the p95 of 2xx answers stays low: within
 * BENCH_CAPACITY_P95_MS (the spec's 200 ms), or within twice the p95 at START_RATE when that is
 * already higher (an engine too slow for the spec's target then gets its own knee, not 1 req/s).
 * A step lasts BENCH_STEP_SECONDS, longer at low rates (up to 3x) so that its p95 rests on 60 requests
 * or more; a step that fails is run once more before it counts, so one hiccup of the shared machine
 * does not decide the capacity. A discarded step at START_RATE warms the stack up first.
 */
async function findCapacity(ctx) {
  let limitMs = CAPACITY_P95_MS;
  const holds = (r) => r.goodput >= 0.95 * r.offered && r.accepted.n > 0 && r.accepted.p95 <= limitMs;
  const measure = async (rate) => {
    await timeToIdle(ctx.stackPids, 20);
    const seconds = Math.min(3 * STEP_SECONDS, Math.max(STEP_SECONDS, 60 / rate));
    return runLoad({ ...ctx, rate, seconds, measureIdle: false });
  };
  const show = (rate, r, note = '') => {
    const ok = holds(r);
    console.log(
      `  ${fmt(rate).padStart(6)}  ${fmt(r.goodput, 1).padStart(9)}  ${fmt(r.accepted.p95).padStart(10)}  ${String(r.timeouts).padStart(8)}  ${String(r.errors + r.shed).padStart(6)}  ${ok ? 'yes' : 'no'}${note}`,
    );
    return ok;
  };
  const step = async (rate) => show(rate, await measure(rate)) || show(rate, await measure(rate), ' (again)');
  console.log(
    `capacity search: ${STEP_SECONDS} s steps; a rate holds when goodput >= 95 % of offered and 2xx p95 stays low`,
  );
  console.log('  rate/s  goodput/s  2xx p95 ms  timeouts  errors  holds');
  show(START_RATE, await measure(START_RATE), ' (warm-up, discarded)');
  const base = await measure(START_RATE);
  limitMs = Math.max(CAPACITY_P95_MS, 2 * (base.accepted.p95 ?? 0));
  console.log(
    `  (p95 limit ${fmt(limitMs)} ms${limitMs > CAPACITY_P95_MS ? `: twice the p95 at ${START_RATE}/s` : ''})`,
  );
  let good = 0;
  let bad = Infinity;
  for (let rate = START_RATE; rate <= MAX_RATE; rate *= 2) {
    const holding =
      rate === START_RATE
        ? show(rate, base) || show(rate, await measure(rate), ' (again)')
        : await step(rate);
    if (holding) good = rate;
    else {
      bad = rate;
      break;
    }
  }
  if (good === 0) {
    // not even the start rate (errors or timeouts): halve until a rate holds (1 req/s at the least)
    for (let rate = Math.floor(START_RATE / 2); rate >= 1; rate = Math.floor(rate / 2))
      if (await step(rate)) return rate;
    return 1;
  }
  for (let i = 0; i < 2 && Number.isFinite(bad) && bad - good > 2; i++) {
    const mid = Math.round((good + bad) / 2);
    if (await step(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

// ---- printing -------------------------------------------------------------------------------------

function printPhase(label, r) {
  const errs = Object.entries(r.otherErrors)
    .map(([k, v]) => `${k}×${v}`)
    .join(', ');
  console.log(
    `\n${label}: offered ${fmt(r.offered, 1)}/s for ${fmt(r.seconds, 1)} s  goodput ${fmt(r.goodput, 1)}/s (+${r.okAfter} 2xx after the load stopped)  shed ${fmt(r.shedRate, 1)}/s (p99 ${fmt(r.shedP99, 1)} ms)  other errors ${r.errors}${errs ? ` (${errs})` : ''}  timeouts ${r.timeouts}`,
  );
  console.log(
    `  longest wait ${fmt(r.longestMs / 1000, 2)} s  idle again after ${r.idleS === null ? `> ${IDLE_MAX_S}` : fmt(r.idleS, 1)} s  stack CPU ${fmt(r.stackCores, 2)} cores  generator CPU ${fmt(r.ownCore * 100)} %  client queue max ${r.queueMax}`,
  );
  console.log('  endpoint (2xx)            n     p50     p95     p99 ms');
  for (const [name, s] of [...Object.entries(r.byOp), ['all accepted', r.accepted]])
    console.log(
      `  ${name.padEnd(22)} ${String(s.n).padStart(5)} ${fmt(s.p50, 1).padStart(7)} ${fmt(s.p95, 1).padStart(7)} ${fmt(s.p99, 1).padStart(7)}`,
    );
}

/** The targets at 2x capacity: [label, figure, pass (true/false, or undefined when not applicable)]. */
function targets(r) {
  return [
    [
      `accepted p99 < ${TARGETS.acceptedP99Ms} ms`,
      `${fmt(r.accepted.p99)} ms`,
      r.accepted.p99 < TARGETS.acceptedP99Ms,
    ],
    [
      `shed answered p99 < ${TARGETS.shedP99Ms} ms`,
      r.shed ? `${fmt(r.shedP99, 1)} ms` : 'nothing shed',
      r.shed ? r.shedP99 < TARGETS.shedP99Ms : undefined,
    ],
    [
      `nothing waits past its deadline (${TIMEOUT_MS / 1000} s)`,
      `longest ${fmt(r.longestMs / 1000, 2)} s, ${r.timeouts} timeouts`,
      r.timeouts === 0 && r.longestMs < TIMEOUT_MS,
    ],
    [
      `idle again within ${TARGETS.idleS} s`,
      r.idleS === null ? `> ${IDLE_MAX_S} s` : `${fmt(r.idleS, 1)} s`,
      r.idleS !== null && r.idleS < TARGETS.idleS,
    ],
  ];
}
const verdict = (pass) => (pass === undefined ? 'n/a' : pass ? 'PASS' : 'FAIL');

function printSummary(runs) {
  const ordered = [...runs].sort((a, b) => STEP_ORDER.indexOf(a.engine) - STEP_ORDER.indexOf(b.engine));
  const rows = [['capacity (req/s)', (r) => r.capacity, 0]];
  for (const [label] of PHASES)
    rows.push(
      [`${label} offered/s`, (r) => r.phases[label]?.offered, 1],
      [`${label} goodput/s`, (r) => r.phases[label]?.goodput, 1],
      [`${label} 2xx after load`, (r) => r.phases[label]?.okAfter, 0],
      [`${label} shed/s`, (r) => r.phases[label]?.shedRate, 1],
      [`${label} 2xx p99 ms`, (r) => r.phases[label]?.accepted.p99, 0],
      [`${label} timeouts`, (r) => r.phases[label]?.timeouts, 0],
      [`${label} longest wait s`, (r) => (r.phases[label] ? r.phases[label].longestMs / 1000 : undefined), 2],
      [`${label} idle after s`, (r) => r.phases[label]?.idleS, 1], // null: not idle within BENCH_IDLE_MAX_S
    );
  const w = 22;
  const ratioHeads = ordered.slice(1).map((r, i) => `${short(r.engine)}/${short(ordered[i].engine)}`);
  console.log(`\n== Summary across engines (ratios: each engine against the one before) ==`);
  console.log(
    `${''.padEnd(22)}${ordered.map((r) => r.engine.padStart(w)).join('')}${ratioHeads.map((h) => h.padStart(14)).join('')}`,
  );
  for (const [label, get, digits] of rows) {
    const values = ordered.map(get);
    const ratios = values
      .slice(1)
      .map((v, i) => (values[i] && typeof v === 'number' ? v / values[i] : undefined));
    const cell = (v) => (v === null ? `> ${IDLE_MAX_S}` : fmt(v, digits));
    console.log(
      `${label.padEnd(22)}${values.map((v) => cell(v).padStart(w)).join('')}${ratios.map((x) => (x === undefined ? '–' : `${fmt(x, 2)}×`).padStart(14)).join('')}`,
    );
  }
  console.log(`\nTargets at 2x capacity:`);
  for (const run of ordered) {
    const r = run.phases['2x'];
    if (!r) continue;
    for (const [label, figure, pass] of targets(r))
      console.log(`  ${run.engine.padEnd(22)} ${label.padEnd(42)} ${figure.padEnd(31)} ${verdict(pass)}`);
  }
}
const short = (engine) => ({ documentdb: 'ddb' })[engine];

// ---- main -----------------------------------------------------------------------------------------

/** Runs the undo steps pushed since the cleanup stack was `depth` deep. */
async function unwind(depth) {
  while (cleanups.length > depth) await cleanups.pop()[1]();
}

async function benchEngine(engine, index) {
  const depth = cleanups.length;
  const db = await startDatabase(engine);
  console.log(`\n== ${engine}: ${db.description} (the bench's own, ${db.url}) ==`);
  await removeBenchData(db); // left over from an interrupted run
  // after the stack has stopped (cleanups run last-in first-out), before the database stops
  cleanups.push(['remove the bench data', () => removeBenchData(db)]);
  const stack = await startBenchStack(db, { containerHeaps: true });
  const stackPids = () => [...stack.children.map((c) => c.child.pid), ...db.pids()];

  const pool = new Pool(stack.url, { connections: CONNECTIONS, pipelining: 1 });
  cleanups.push(['close the client pool', () => pool.destroy()]);
  const crashed = () => stack.children.find((c) => c.child.exitCode !== null || c.child.signalCode !== null);
  sentenceTag = `${RUN}${index}`;
  const t0 = performance.now();
  const users = await createUsers(pool);
  console.log(
    `set-up: stack on ${stack.url}, ${USERS} users with ${CARDS_PER_USER} cards each in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  const settleS = await timeToIdle(stackPids);
  // "idle" is back to this resting level (outbox relays, consumers and probes tick even with no load)
  resting = await coreShare(stackPids, 3_000);
  console.log(
    `idle after set-up in ${settleS === null ? `> ${IDLE_MAX_S}` : fmt(settleS, 1)} s; at rest the stack uses ${fmt(resting * 100, 1)} % of a core; idle below ${fmt((resting + IDLE_CORE_SHARE) * 100, 1)} %`,
  );
  const ctx = { pool, users, stackPids };
  const given = fixedCapacity(engine);
  const capacity = given ?? (await findCapacity(ctx));
  console.log(`capacity: ${capacity} req/s${given ? ' (BENCH_CAPACITY)' : ''}`);
  const phases = {};
  for (const [label, factor] of PHASES) {
    await timeToIdle(stackPids);
    phases[label] = await runLoad({ ...ctx, rate: capacity * factor, seconds: SECONDS, measureIdle: true });
    printPhase(`${label} capacity`, phases[label]);
    const dead = crashed();
    if (dead) throw new Error(`${dead.name} exited during the load`);
  }
  const memory = peakMemory(stack);
  await unwind(depth); // this engine's stack and database stop before the next engine starts
  return { engine, description: db.description, capacity, phases, memory };
}

/**
 * Each deployable's peak RSS over the whole run (VmHWM) against its Kubernetes memory limit: the
 * processes ran with their containers' heaps (start-stack's containerHeaps), and a peak over 85 % of
 * the limit fails the bench, as it fails the chaos soak (bench/soak-memory.js). A deployable's helper
 * processes (the AI's lt-proc, Hunspell, Grammalecte) share its container, so their peaks are added
 * (an upper bound: peaks need not coincide). A process gone before this reading fails the bench.
 */
function peakMemory(stack) {
  const limits = memoryLimits();
  const descendants = (pid) => childPids(pid).flatMap((c) => [c, ...descendants(c)]);
  const peaks = Object.fromEntries(
    stack.children.map(({ name, child }) => {
      const own = statusKb(child.pid, 'VmHWM');
      if (!own) throw new Error(`${name} exited before its peak RSS was read`);
      const helpers = descendants(child.pid).reduce((sum, pid) => sum + statusKb(pid, 'VmHWM'), 0);
      return [name, { peak: own + helpers }];
    }),
  );
  const over = overLimits(peaks, limits).map((o) => o.process);
  const rows = Object.entries(peaks).map(([name, { peak }]) => ({
    process: name,
    peakMb: round(peak / 1024, 0),
    limitMb: limits[name] === undefined ? null : round(limits[name] / 1024, 0),
    shareOfLimit: limits[name] === undefined ? null : round(peak / limits[name], 2),
  }));
  console.log('\npeak RSS over the run against the Kubernetes limit (at most 85 %):');
  for (const r of rows)
    console.log(
      `  ${r.process.padEnd(14)} ${String(r.peakMb).padStart(5)} of ${String(r.limitMb ?? '–').padStart(5)} MB  ${r.shareOfLimit === null ? '' : `${Math.round(r.shareOfLimit * 100)} %`}${over.includes(r.process) ? '  OVER' : ''}`,
    );
  if (over.length) {
    console.error(`peak RSS over 85 % of the memory limit: ${over.join(', ')}`);
    process.exitCode = 1;
  }
  return rows;
}

async function main() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      if (cleaning) return console.error(`${signal}: still stopping what the bench started...`);
      console.error(`\n${signal}: stopping what the bench started...`);
      void cleanUp().finally(() => process.exit(130));
    });
  for (const event of ['uncaughtException', 'unhandledRejection'])
    process.on(event, (err) => {
      console.error(event, err);
      void cleanUp().finally(() => process.exit(1));
    });
  for (const e of ENGINES)
    if (!STEP_ORDER.includes(e))
      throw new Error(`BENCH_ENGINES: unknown engine '${e}' (${STEP_ORDER.join(', ')})`);
  console.log(
    `Overload bench: ${USERS} users, ${SECONDS} s per phase, client timeout ${TIMEOUT_MS / 1000} s, up to ${CONNECTIONS} connections; engines: ${ENGINES.join(', ')}`,
  );
  const runs = [];
  for (const [i, engine] of ENGINES.entries()) runs.push(await benchEngine(engine, i));
  printSummary(runs);
  await writeResult('overload', {
    users: USERS,
    secondsPerPhase: SECONDS,
    engines: runs.map((run) => ({
      engine: run.engine,
      capacityPerS: run.capacity,
      phases: PHASES.filter(([label]) => run.phases[label]).map(([label, factor]) => {
        const r = run.phases[label];
        return {
          phase: label.replace('x', '×'),
          ratePerS: run.capacity * factor,
          goodputPerS: round(r.goodput, 1),
          shedPerS: round(r.shedRate, 1),
          acceptedP99Ms: round(r.accepted.p99, 0),
          shedP99Ms: r.shed ? round(r.shedP99, 1) : null,
          timeouts: r.timeouts,
          longestWaitS: round(r.longestMs / 1000, 2),
          idleAfterS: round(r.idleS, 1), // null: not idle within BENCH_IDLE_MAX_S
        };
      }),
      peakRss: run.memory,
    })),
  });
}

// the journey bench (bench/journey) starts its database and stack the same way
module.exports = { isShed, startDatabase, startBenchStack, cpuMeter, cleanups, cleanUp };

if (require.main === module)
  main()
    .catch((err) => {
      if (cleaning) return; // interrupted: the signal handler reports and exits
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => cleanUp());
