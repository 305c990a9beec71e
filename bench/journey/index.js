#!/usr/bin/env node
// The journey bench (`npm run bench:journey`): a mobile app's session mix, open loop through the real
// gateway, against the whole stack as `npm start` runs it, on seeded data sets of two sizes. See
// bench/README.md, "Journey". Per size (BENCH_SIZES, default S,L) it:
//   1. seeds the data set into databases of its own (bench_journey_<size>_*), or reuses an earlier
//      seeding (seed.js), and prints how long seeding took;
//   2. on the last size, runs the mix through a wire tap once and prints the database's plan for every
//      query shape the mix issued, with whether an index serves it (capture.js, explain.js);
//   3. starts the stack on a FerretDB of its own (infra.sh, the local PostgreSQL with DocumentDB),
//      signs in BENCH_USERS of the data set's users, warms up, then offers BENCH_RATE calls a second
//      for BENCH_SECONDS and prints per call p50/p95/p99/max and errors (HDR histograms) and the CPU
//      per call of every process of the stack (procfs);
//   4. finds the capacity (the highest rate with no error and every p95 under BENCH_CAPACITY_P95_MS)
//      with a short step search, and runs the mix again at half of it;
//   5. measures what a call costs besides CPU (Redis commands, NATS messages, database operations,
//      documents and their bytes, memory; footprint.js) and the ceilings of one Redis and one
//      JetStream stream, and keeps the figures in bench/results/journey.json (BENCH_RESULT: another
//      file; BENCH_FOOTPRINT=false skips this) for the capacity model (npm run capacity);
// and last a summary across the sizes with the issue's targets.
const crypto = require('node:crypto');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { Pool } = require('undici');
const { childPids, cpuMsOf, openLoop, pidListeningOn, sleepsOf, writeJson } = require('../support');
const { startDatabase, startBenchStack, cpuMeter, cleanups, cleanUp } = require('../overload');
const { ensureSeeded, pickUsers, dbNames, PASSWORD } = require('./seed');
const { CALLS, P95_EXEMPT, pickCall, issue, setTokens } = require('./mix');
const { startCapture } = require('./capture');
const { openMeters, perCall, memoryOf, redisCeiling, natsCeiling } = require('./footprint');
const { explainAll } = require('./explain');
const { SIZES, EndpointStats, holds, nextRate, capacityOf, fmt, table, prng } = require('./stats');

const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
const SIZE_NAMES = (process.env.BENCH_SIZES ?? 'S,L')
  .split(',')
  .map((s) => s.trim().toUpperCase())
  .filter(Boolean);
const RATE = num('BENCH_RATE', 50);
const SECONDS = num('BENCH_SECONDS', 30);
const WARMUP_SECONDS = num('BENCH_WARMUP_SECONDS', 15);
const IDLE_SECONDS = num('BENCH_IDLE_SECONDS', 10);
const IDLE_WAKEUPS_TARGET = 10;
const USERS = num('BENCH_USERS', 100);
const STEP_SECONDS = num('BENCH_STEP_SECONDS', 10);
const START_RATE = num('BENCH_START_RATE', 25);
const MAX_RATE = num('BENCH_MAX_RATE', 2000);
const CAPACITY_P95_MS = num('BENCH_CAPACITY_P95_MS', 50);
const HALF_P95_TARGET_MS = 20;
const CPU_TARGET_MS = 3;
const FLAT_TARGET = 1.2;
const TIMEOUT_MS = num('BENCH_TIMEOUT_MS', 10_000);
const CONNECTIONS = num('BENCH_CONNECTIONS', 256);
const BCRYPT_COST = num('BENCH_BCRYPT_COST', 12);
const EXPLAIN_SIZE = (process.env.BENCH_EXPLAIN_SIZE ?? SIZE_NAMES.at(-1)).toUpperCase();
const PG_PORT = Number(process.env.LINGUA_PG_PORT ?? 55432);
const REDIS_PORT = Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379);
const NATS_PORT = Number(
  new URL((process.env.NATS_URL ?? 'nats://127.0.0.1:4222').replace(/^nats:/, 'http:')).port || 4222,
);
const STREAM = 'BENCH_JOURNEY';
const RUN = crypto.randomBytes(3).toString('hex');
const STACK = ['gateway', 'identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
const RESULT = process.env.BENCH_RESULT ?? require('node:path').join(__dirname, '../results/journey.json');
const FOOTPRINT = process.env.BENCH_FOOTPRINT !== 'false';

/** BENCH_SIZE_<S|L>=users:max:median overrides a data set's size (sigma and seed stay). */
function sizeSpec(size) {
  const base = SIZES[size];
  if (!base) throw new Error(`BENCH_SIZES: unknown size ${size} (S, L)`);
  const override = process.env[`BENCH_SIZE_${size}`];
  const spec = { ...base, bcryptCost: BCRYPT_COST };
  if (override) {
    const [users, max, median] = override.split(':').map(Number);
    Object.assign(spec, { users, max, median: median ?? Math.max(1, max / 20) });
  }
  return spec;
}

// ---- the processes whose CPU counts --------------------------------------------------------------

/** A client backend of PostgreSQL shows its client's address in its title: `postgres: user db 127.0.0.1(54321) idle`. */
const isClientBackend = (pid) => {
  try {
    return /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * Groups of processes, by name: each a function listing its pids now (asked again every second).
 * The servers found by their listening port (PostgreSQL's postmaster, Redis, NATS) are looked up
 * once: each look-up reads every process's open files (11 ms at idle, more under load) in the load
 * generator's own loop, which showed as 80-100 ms outliers in every endpoint once a second.
 */
function processGroups(stack, db) {
  const postmaster = pidListeningOn(PG_PORT);
  const redis = pidListeningOn(REDIS_PORT);
  const nats = pidListeningOn(NATS_PORT);
  const groups = {};
  for (const name of STACK) {
    const c = stack.children.find((x) => x.name === name);
    groups[name] = () => [c.child.pid];
  }
  groups.ferretdb = () => db.pids().slice(0, 1);
  groups['postgres backends (of this FerretDB)'] = () => db.pids().slice(1);
  // the postmaster and its workers (checkpointer, WAL writer, autovacuum, pg_cron, DocumentDB's); the
  // client backends of other FerretDBs are left out (on a shared machine they serve other work)
  groups['postgres workers'] = () =>
    postmaster ? [postmaster, ...childPids(postmaster).filter((p) => !isClientBackend(p))] : [];
  groups.redis = () => [redis].filter(Boolean);
  groups.nats = () => [nats].filter(Boolean);
  return groups;
}

// ---- load --------------------------------------------------------------------------------------------

let wordSeq = 0;
const ctx = {
  run: RUN,
  password: PASSWORD,
  timeoutMs: TIMEOUT_MS,
  newWord: () => `jny${RUN}w${(wordSeq++).toString(36)}`,
  errorSamples: new Map(),
  onError(name, status, text) {
    const list = ctx.errorSamples.get(name) ?? [];
    if (list.length < 3) list.push(`${status} ${String(text).slice(0, 160)}`);
    ctx.errorSamples.set(name, list);
  },
};

/** One window of open-loop load; resolves { rows, completed, seconds, cpu: {group: ms}, generatorMs }. */
async function runMix({ pool, users, rate, seconds, groups, random }) {
  const stats = new EndpointStats();
  const meters = Object.fromEntries(Object.entries(groups ?? {}).map(([n, pidsOf]) => [n, cpuMeter(pidsOf)]));
  // read every 250 ms: processes that come and go in the window (PostgreSQL backends of FerretDB's
  // pooled connections) are counted up to their last reading, not lost
  const polling = setInterval(() => Object.values(meters).forEach((m) => m.read()), 250);
  const stolen = stealMeter();
  const woken = wakeMeter(groups);
  const own = process.cpuUsage();
  const started = performance.now();
  const { settled } = await openLoop({
    rate,
    seconds,
    fire: async () => {
      const user = users[Math.floor(random() * users.length)];
      const r = await issue(pool, user, pickCall(user, random), random, ctx);
      stats.record(r.name, r.ms, r.ok, r.status);
    },
  });
  await settled;
  clearInterval(polling);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = Object.fromEntries(Object.entries(meters).map(([n, m]) => [n, m.read()]));
  const steal = stolen();
  const wakeups = woken();
  const { user, system } = process.cpuUsage(own);
  const rows = stats.rows();
  return {
    rows,
    completed: rows.at(-1).count,
    seconds: elapsed,
    cpu,
    steal,
    wakeups,
    generatorMs: (user + system) / 1000,
  };
}

/**
 * Runs `run` between two readings of the footprint meters (Redis commands, NATS messages, database
 * operations, documents; footprint.js): { result, before, after, seconds }, or { result } without meters.
 */
async function metered(meters, run) {
  if (!meters) return { result: await run() };
  const before = await meters.read();
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  return { result, before, after: await meters.read(), seconds };
}

/** The figures of one window for the result file: per answered call, by process and by call. */
function windowFigures(label, offered, r, restShare, m) {
  const okCalls = r.completed - r.rows.at(-1).errors;
  const per = (ms) => Number((ms / okCalls).toFixed(3));
  const windowMs = r.seconds * 1000;
  return {
    label,
    offeredPerS: offered,
    answeredPerS: Number((okCalls / r.seconds).toFixed(1)),
    seconds: Number(r.seconds.toFixed(1)),
    calls: r.completed,
    errors: r.rows.at(-1).errors,
    steal: Number(r.steal.toFixed(3)),
    callsByKind: Object.fromEntries(r.rows.filter((x) => x.name !== 'all').map((x) => [x.name, x.count])),
    p95Ms: Object.fromEntries(r.rows.map((x) => [x.name, Number((x.p95 ?? 0).toFixed(2))])),
    cpuMsPerCall: Object.fromEntries(Object.entries(r.cpu).map(([n, ms]) => [n, per(ms)])),
    cpuMsPerCallAboveRest: Object.fromEntries(
      Object.entries(r.cpu).map(([n, ms]) => [n, per(Math.max(0, ms - (restShare[n] ?? 0) * windowMs))]),
    ),
    ...(m.before && perCall(m.before, m.after, okCalls)),
  };
}

/**
 * The Node services' main-thread wake-ups (mostly event-loop sleeps ended; bench/support.js sleepsOf)
 * from now to the call of the function it returns, by name: at these rates each wake-up runs the
 * process cold, at several times what the same work costs under load (bench/hop-cost.js).
 */
function wakeMeter(groups) {
  const services = STACK.filter((n) => groups?.[n]).map((n) => [n, groups[n]()[0]]);
  const before = services.map(([, pid]) => sleepsOf(pid));
  return () =>
    Object.fromEntries(services.map(([n, pid], i) => [n, (sleepsOf(pid) ?? NaN) - (before[i] ?? NaN)]));
}

/**
 * The share of the machine's CPU time the host took (steal, /proc/stat) from now to the call of the
 * function it returns: on a shared VM every process runs slower while it is high, so CPU per call
 * and latencies are not comparable across windows that differ in it.
 */
function stealMeter() {
  const read = () => {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: f[7] ?? 0, all: f.slice(0, 8).reduce((a, b) => a + b, 0) };
  };
  const from = read();
  return () => {
    const to = read();
    return to.all > from.all ? (to.steal - from.steal) / (to.all - from.all) : 0;
  };
}

const p95Rows = (rows) => rows.filter((r) => r.name !== 'all' && !P95_EXEMPT.has(r.name));

function printRows(title, r) {
  console.log(
    `\n${title}: ${r.completed} calls in ${fmt(r.seconds, 1)} s (${fmt(r.completed / r.seconds, 1)}/s)`,
  );
  console.log(
    table(
      ['call', 'n', 'errors', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
      r.rows.map((x) => [
        x.name + (P95_EXEMPT.has(x.name) ? ' (no p95 rule)' : ''),
        x.count,
        x.errors
          ? `${x.errors} (${Object.entries(x.errorsByStatus)
              .map(([s, n]) => `${s}×${n}`)
              .join(' ')})`
          : 0,
        fmt(x.p50, 2),
        fmt(x.p95, 2),
        fmt(x.p99, 2),
        fmt(x.max, 1),
      ]),
    ),
  );
  for (const [name, samples] of ctx.errorSamples) console.log(`  errors of ${name}: ${samples.join(' | ')}`);
  ctx.errorSamples.clear();
}

/**
 * Prints the CPU per call of each process group over the window and returns the stack's total. Per
 * answered call without error: a refused call (503 when shedding) costs little, so with errors the
 * figure is flagged rather than diluted.
 */
function printCpu(r, restShare = {}, restWakeups = {}) {
  const total = Object.values(r.cpu).reduce((s, v) => s + v, 0);
  const windowMs = r.seconds * 1000;
  const above = (n, ms) => ms - (restShare[n] ?? 0) * windowMs;
  const totalAbove = Object.entries(r.cpu).reduce((s, [n, ms]) => s + above(n, ms), 0);
  const okCalls = r.completed - r.rows.at(-1).errors;
  // wake-ups per call, and above what the process does at rest (timers: load shedder, outbox relay, metrics)
  const wakeCell = (count, restPerS) =>
    `${fmt(count / okCalls, 1)} (${fmt((count - (restPerS ?? NaN) * r.seconds) / okCalls, 1)})`;
  const flag =
    okCalls < r.completed ? `  (!) ${r.completed - okCalls} calls failed: not a figure to compare` : '';
  console.log(`CPU per call (ms), over the ${okCalls} calls answered without error:${flag}`);
  console.log(
    `the host took ${fmt(100 * r.steal, 1)} % of the machine's CPU time in the window (steal)` +
      (r.steal > 0.05 ? ': (!) every figure is inflated, not one to compare' : ''),
  );
  console.log(
    table(
      [
        'process',
        'CPU ms/call',
        'of which above rest',
        'share',
        'cores',
        'cores at rest',
        'Node wake-ups/call (above rest)',
      ],
      [
        ...Object.entries(r.cpu)
          .sort(([, a], [, b]) => b - a)
          .map(([n, ms]) => [
            n,
            fmt(ms / okCalls, 3),
            // a process busier at rest than in the window (a timer's tick, noise) shows 0
            fmt(Math.max(0, above(n, ms)) / okCalls, 3),
            `${fmt((100 * ms) / total, 0)} %`,
            fmt(ms / windowMs, 2),
            fmt(restShare[n], 2),
            n in r.wakeups ? wakeCell(r.wakeups[n], restWakeups[n]) : '',
          ]),
        [
          'the stack, total',
          fmt(total / okCalls, 3),
          fmt(totalAbove / okCalls, 3),
          '100 %',
          fmt(total / windowMs, 2),
          fmt(
            Object.values(restShare).reduce((a, b) => a + b, 0),
            2,
          ),
          Object.keys(r.wakeups).length === 0
            ? ''
            : wakeCell(
                Object.values(r.wakeups).reduce((a, b) => a + b, 0),
                Object.keys(r.wakeups).reduce((a, n) => a + (restWakeups[n] ?? NaN), 0),
              ),
        ],
        [
          '(the load generator)',
          fmt(r.generatorMs / okCalls, 3),
          '',
          '',
          fmt(r.generatorMs / windowMs, 2),
          '',
          '',
        ],
      ],
    ),
  );
  return { perCall: total / okCalls, abovePerCall: totalAbove / okCalls };
}

/** Signs the users in through the API (a few at a time), giving each its tokens and client address. */
async function signIn(pool, picked) {
  const users = picked.map((u, i) => ({ ...u, address: `198.19.${i >> 8}.${i & 255}`, created: [] }));
  let next = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (next < users.length) {
        const u = users[next++];
        // set-up, not measurement: a sign-in that hit its deadline on a busy machine is tried again
        let status = 0;
        let text = '';
        for (let attempt = 0; attempt < 5 && status !== 200; attempt++) {
          if (attempt > 0) await sleep(1_000 * attempt);
          const res = await pool.request({
            method: 'POST',
            path: '/api/v1/auth/login',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': u.address },
            body: JSON.stringify({ email: u.email, password: PASSWORD }),
          });
          text = await res.body.text();
          status = res.statusCode;
          if (status !== 200 && status < 500) break;
        }
        if (status !== 200) throw new Error(`login of ${u.email} answered ${status}: ${text.slice(0, 200)}`);
        setTokens(u, JSON.parse(text).data);
      }
    }),
  );
  return users;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The share of a core the processes use over `ms`. */
async function coreShare(pidsOf, ms) {
  const meter = cpuMeter(pidsOf);
  const started = performance.now();
  await sleep(ms);
  return meter.read() / (performance.now() - started);
}

/**
 * Waits (at most `maxS`) until the processes use no more than their resting share plus 5 % of a core
 * over a second, so that one window's backlog does not land in the next.
 */
async function settle(pidsOf, resting, maxS) {
  const deadline = performance.now() + maxS * 1000;
  while (performance.now() < deadline) if ((await coreShare(pidsOf, 1_000)) <= resting + 0.05) return;
}

/** The whole stack on the data set's databases (through `mongoUrl`, the tap or the database itself). */
async function stackFor(db, size, mongoUrl) {
  return startBenchStack(db, {
    dbNames: dbNames(size),
    stream: STREAM,
    rateLimitPrefix: 'bench:journey:rl',
    env: {
      MONGO_URL: mongoUrl,
      RATE_LIMIT_LOGIN_PER_MINUTE: '1000000',
      RATE_LIMIT_SIGNUP_PER_HOUR: '1000000',
      AI_FREE_LOOKUPS_PER_WINDOW: '1000000',
      AI_FREE_GENERATIONS_PER_DAY: '1000000',
      IDENTITY_BCRYPT_COST: String(BCRYPT_COST),
      // a V8 CPU profile of every process of the stack, written when it stops (one file per process)
      ...(process.env.BENCH_CPU_PROF_DIR && {
        NODE_OPTIONS:
          `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`.trim(),
      }),
    },
  });
}

/** Stops what was pushed on the cleanup stack since it was `depth` deep (last in, first out). */
async function unwind(depth) {
  while (cleanups.length > depth) await cleanups.pop()[1]();
}

/** Runs the mix through the wire tap and prints the plan of every query shape it issued. */
async function explainMix(db, size, picked) {
  const depth = cleanups.length;
  const tap = await startCapture(new URL(db.url).host);
  cleanups.push(['close the wire tap', () => tap.close()]);
  const stack = await stackFor(db, size, `mongodb://127.0.0.1:${tap.port}`);
  const pool = new Pool(stack.url, { connections: 32 });
  cleanups.push(['close the pool', () => pool.destroy()]);
  const users = await signIn(pool, picked);
  // every call at least a few times: each call once per user in turn, then the mix at a low rate
  for (const name of Object.keys(CALLS))
    for (const u of users.slice(0, 3)) await issue(pool, u, name, prng(7), ctx);
  await runMix({ pool, users, rate: 20, seconds: 10, random: prng(8) });
  ctx.errorSamples.clear();
  await unwind(depth);
  const rows = await explainAll(db.url, tap.shapes, PG_PORT);
  console.log(
    `\nQuery plans on ${size} (${rows.length} query shapes the mix issued; explain through FerretDB, PostgreSQL's plan):`,
  );
  console.log(
    table(
      ['collection', 'op', 'filter', 'sort', 'seen', 'scans (index)', 'indexed', 'rows read', 'ms'],
      rows
        .sort((a, b) => `${a.db}.${a.collection}`.localeCompare(`${b.db}.${b.collection}`))
        .map((r) => [
          `${r.db.replace(/^bench_journey_[sl]_/, '')}.${r.collection}`,
          r.op,
          JSON.stringify(shape(r.filter ?? r.pipeline)).slice(0, 90),
          r.sort ? JSON.stringify(r.sort) : '',
          r.count,
          r.error
            ? `error: ${r.error.slice(0, 60)}`
            : r.scans.map((s) => `${s.type}${s.index ? ` (${s.index})` : ''}`).join(', '),
          r.error ? '?' : r.indexed ? 'yes' : 'NO',
          r.analyzed?.rowsRead ?? (r.analyzed?.error ? `error: ${r.analyzed.error.slice(0, 40)}` : '–'),
          fmt(r.analyzed?.ms, 2),
        ]),
    ),
  );
  if (process.env.BENCH_EXPLAIN_OUT) {
    fs.writeFileSync(process.env.BENCH_EXPLAIN_OUT, JSON.stringify(rows, null, 2));
    console.log(`(the full plans: ${process.env.BENCH_EXPLAIN_OUT})`);
  }
  return { plans: rows, users };
}
const shape = (v) => require('./capture').shapeOf(v);

/** The step search for the capacity; prints each step. */
async function findCapacity(base) {
  const steps = [];
  console.log(
    `\nCapacity search: ${STEP_SECONDS} s steps; a rate holds with no error and every p95 < ${CAPACITY_P95_MS} ms (login exempt)`,
  );
  for (
    let rate = START_RATE;
    rate !== undefined;
    rate = nextRate(steps, { start: START_RATE, max: MAX_RATE })
  ) {
    let ok = false;
    for (let attempt = 0; attempt < 2 && !ok; attempt++) {
      await settle(base.stackPids, base.resting, 20);
      const r = await runMix({ ...base, rate, seconds: STEP_SECONDS });
      ok = holds(p95Rows(r.rows), CAPACITY_P95_MS);
      const worst = p95Rows(r.rows).sort((a, b) => (b.p95 ?? 0) - (a.p95 ?? 0))[0];
      console.log(
        `  ${String(rate).padStart(5)}/s  errors ${String(r.rows.at(-1).errors).padStart(4)}  worst p95 ${fmt(worst?.p95, 1)} ms (${worst?.name})  ${ok ? 'holds' : 'does not hold'}${attempt ? ' (again)' : ''}`,
      );
      ctx.errorSamples.clear();
    }
    steps.push([rate, ok]);
  }
  return capacityOf(steps);
}

async function benchSize(size, db) {
  const depth = cleanups.length;
  const spec = sizeSpec(size);
  const loadAverageAtStart = require('node:os')
    .loadavg()
    .map((x) => Number(x.toFixed(2)));
  console.log(
    `\n==== ${size}: ${spec.users} users, 0-${spec.max} cards each (log-normal, median ${spec.median}, sigma ${spec.sigma}) ====`,
  );
  const t0 = performance.now();
  const seeded = await ensureSeeded(db.url, size, spec);
  console.log(
    `data set ${seeded.reused ? 'reused' : 'seeded'}: ${seeded.users} users, ${seeded.cards} cards; seeding took ${fmt(seeded.seconds.insert, 1)} s to insert (${fmt(seeded.cards / seeded.seconds.insert, 0)} cards/s) and ${fmt(seeded.seconds.indexes, 1)} s to build the indexes${seeded.reused ? ' (when it was seeded)' : ` (${fmt((performance.now() - t0) / 1000, 1)} s in all)`}`,
  );
  if (process.env.BENCH_SEED_ONLY === 'true') return { size, spec, seeded };
  const picked = await pickUsers(db.url, size, USERS);
  let users;
  let plans;
  if (size === EXPLAIN_SIZE && process.env.BENCH_EXPLAIN !== 'false')
    ({ plans, users } = await explainMix(db, size, picked));
  const stack = await stackFor(db, size, db.url);
  const pool = new Pool(stack.url, { connections: CONNECTIONS, pipelining: 1 });
  if (!users) {
    const t1 = performance.now();
    users = await signIn(pool, picked);
    console.log(
      `${users.length} users signed in in ${fmt((performance.now() - t1) / 1000, 1)} s (bcrypt cost ${BCRYPT_COST})`,
    );
  }
  console.log(`stack on ${stack.url}`);
  cleanups.push(['stop the stack', () => stack.stop()]);
  cleanups.push(['close the pool', () => pool.destroy()]);
  const groups = processGroups(stack, db);
  const stackPids = () => Object.values(groups).flatMap((g) => g());
  const base = { pool, users, groups, stackPids, random: prng(size.charCodeAt(0)) };

  await runMix({ ...base, rate: RATE, seconds: WARMUP_SECONDS });
  ctx.errorSamples.clear();
  await sleep(2_000);
  // what each process uses with no load (outbox relays, consumers, probes, timers), over 5 s
  const meters = FOOTPRINT
    ? await openMeters({
        redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        mongoUrl: db.url,
        natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
        streams: [STREAM, `${STREAM}_ACTIVITY`],
        dbs: dbNames(size),
      })
    : null;
  if (meters) cleanups.push(['close the footprint meters', () => meters.close()]);
  // read outside the CPU meters: the meters' own queries are not the stack's rest
  const rest = { before: await meters?.read(), started: performance.now() };
  const restMeters = Object.fromEntries(Object.entries(groups).map(([n, pidsOf]) => [n, cpuMeter(pidsOf)]));
  const restWoken = wakeMeter(groups);
  const restStarted = performance.now();
  await sleep(5_000);
  const restMs = performance.now() - restStarted;
  base.restShare = Object.fromEntries(Object.entries(restMeters).map(([n, m]) => [n, m.read() / restMs]));
  base.restWakeups = Object.fromEntries(
    Object.entries(restWoken()).map(([n, count]) => [n, count / (restMs / 1000)]),
  );
  base.resting = Object.values(base.restShare).reduce((a, b) => a + b, 0);
  rest.after = await meters?.read();
  rest.seconds = (performance.now() - rest.started) / 1000;
  console.log(
    `at rest after the warm-up the stack's processes use ${fmt(base.resting * 100, 0)} % of a core`,
  );
  const fixedM = await metered(meters, () => runMix({ ...base, rate: RATE, seconds: SECONDS }));
  const fixed = fixedM.result;
  printRows(`${size} at ${RATE}/s offered`, fixed);
  const { perCall: cpuPerCall, abovePerCall } = printCpu(fixed, base.restShare, base.restWakeups);
  const windows = [windowFigures('fixed rate', RATE, fixed, base.restShare, fixedM)];
  // what the users hold in Redis after the window
  const footprint = meters && {
    restPerSecond: perCall(rest.before, rest.after, rest.seconds),
    redisHeld: await meters.redisHeld({
      namespace: dbNames(size).flashcards,
      userIds: users.map((u) => u.id),
      rateLimitPrefix: 'bench:journey:rl',
    }),
    // the cards too: the one large collection, whose index bytes per document are not one page's
    bytesPerDocument: await meters.bytesPerDocument([
      ...new Set(['flashcards.cards', ...Object.keys(windows[0].documentsWritten ?? {})]),
    ]),
  };

  let capacity;
  let half;
  if (process.env.BENCH_CAPACITY !== 'false') {
    capacity = num(`BENCH_CAPACITY_${size}`, undefined) ?? (await findCapacity(base));
    console.log(`capacity on ${size}: ${capacity}/s`);
    if (capacity > 0) {
      await settle(stackPids, base.resting, 30);
      const halfM = await metered(meters, () => runMix({ ...base, rate: capacity / 2, seconds: SECONDS }));
      half = halfM.result;
      printRows(`${size} at half the capacity (${capacity / 2}/s)`, half);
      printCpu(half, base.restShare, base.restWakeups);
      windows.push(windowFigures('half the capacity', capacity / 2, half, base.restShare, halfM));
    }
  }
  // memory after the windows, and the peak since start
  const memoryMb = Object.fromEntries(
    Object.entries(groups)
      .filter(([n]) => STACK.includes(n) || n === 'ferretdb')
      .map(([n, pidsOf]) => [n, memoryOf(pidsOf()[0])]),
  );
  // what one Redis and one JetStream stream take at most on this machine, with the stack idle
  let ceilings;
  if (FOOTPRINT && process.env.BENCH_CEILINGS !== 'false') {
    await settle(stackPids, base.resting, 30);
    ceilings = {
      redis: redisCeiling(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
      nats: await natsCeiling({
        natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
        stream: `${STREAM}_CEILING`,
        cpuMs: () => cpuMsOf(groups.nats()) ?? 0,
      }),
    };
    console.log(
      `ceilings: Redis ${ceilings.redis.mixedPerS} commands/s (${JSON.stringify(ceilings.redis.commandsPerS)}); JetStream ${ceilings.nats.publishedPerS} publishes/s, ${ceilings.nats.serverCpuUsPerMessage} µs of NATS CPU each`,
    );
  }
  // idle: the calls over and the stack back at its resting CPU, each Node service's wake-ups a second
  // over IDLE_SECONDS (issue 39: fewer than IDLE_WAKEUPS_TARGET each)
  await settle(stackPids, base.resting, 30);
  const idleWoken = wakeMeter(groups);
  await sleep(IDLE_SECONDS * 1000);
  const idleWakeups = Object.fromEntries(
    Object.entries(idleWoken()).map(([n, count]) => [n, Number((count / IDLE_SECONDS).toFixed(1))]),
  );
  console.log(`idle, wake-ups a second over ${IDLE_SECONDS} s: ${JSON.stringify(idleWakeups)}`);
  // the cards the mix created go again (through the API, so the due read model follows)
  const created = users.flatMap((u) => u.created.map((id) => [u, id]));
  for (const [u, id] of created)
    await pool
      .request({
        method: 'DELETE',
        path: `/api/flashcards/${id}`,
        headers: { authorization: `Bearer ${u.accessToken}`, 'x-forwarded-for': u.address },
      })
      .then((r) => r.body.dump())
      .catch(() => undefined);
  await unwind(depth);
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: require('node:os').cpus().length, node: process.version, loadAverageAtStart },
    data: {
      users: seeded.users,
      cards: seeded.cards,
      maxCardsPerUser: spec.max,
      medianCardsPerUser: spec.median,
    },
    signedInUsers: users.length,
    mixWeights: Object.fromEntries(Object.entries(CALLS).map(([n, c]) => [n, c.weight])),
    restCores: Object.fromEntries(Object.entries(base.restShare).map(([n, v]) => [n, Number(v.toFixed(3))])),
    // the Node services' wake-ups a second 2 s after the warm-up (the rest the windows subtract), and idle
    restWakeupsPerS: Object.fromEntries(
      Object.entries(base.restWakeups).map(([n, v]) => [n, Number(v.toFixed(1))]),
    ),
    idleWakeupsPerS: idleWakeups,
    capacityPerS: capacity ?? null,
    // BENCH_CAPACITY_<size> gave it rather than the step search
    capacityGiven: process.env[`BENCH_CAPACITY_${size}`] !== undefined,
    windows,
    memoryMb,
    ceilings: ceilings ?? null,
    ...footprint,
  };
  return { size, spec, seeded, fixed, cpuPerCall, abovePerCall, capacity, half, plans, idleWakeups, result };
}

/** The calls over a p95 limit, worst first: the three worst by name, then how many more. */
function over(rows) {
  if (rows.length === 0) return 'none';
  const worst = [...rows].sort((a, b) => b.p95 - a.p95);
  const names = worst.slice(0, 3).map((x) => `${x.name} ${fmt(x.p95, 0)}`);
  return `${rows.length}: ${names.join(', ')}${rows.length > 3 ? ', …' : ''}`;
}

function printSummary(results) {
  console.log('\n==== Summary ====');
  const rows = results.map((r) => [
    r.size,
    `${r.seeded.users} / ${r.seeded.cards}`,
    fmt(r.cpuPerCall, 3),
    fmt(r.abovePerCall, 3),
    r.capacity ?? '–',
    r.half ? fmt(Math.max(...p95Rows(r.half.rows).map((x) => x.p95 ?? 0)), 1) : '–',
    r.half ? over(p95Rows(r.half.rows).filter((x) => x.p95 >= HALF_P95_TARGET_MS)) : '–',
  ]);
  console.log(
    table(
      [
        'size',
        'users / cards',
        `CPU ms/call at ${RATE}/s`,
        'of which above rest',
        'capacity /s',
        'worst p95 at half (ms)',
        `p95 ≥ ${HALF_P95_TARGET_MS} ms`,
      ],
      rows,
    ),
  );
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  for (const r of results)
    console.log(
      `target: ${r.size} stack CPU per call ≤ ${CPU_TARGET_MS} ms: ${fmt(r.cpuPerCall, 3)} ms ${verdict(r.cpuPerCall <= CPU_TARGET_MS)}`,
    );
  const s = results.find((r) => r.size === 'S');
  const l = results.find((r) => r.size === 'L');
  if (s && l)
    console.log(
      `target: CPU per call L / S ≤ ${FLAT_TARGET}×: ${fmt(l.cpuPerCall / s.cpuPerCall, 2)}× ${verdict(l.cpuPerCall / s.cpuPerCall <= FLAT_TARGET)} (above rest: ${fmt(l.abovePerCall / s.abovePerCall, 2)}×)`,
    );
  for (const r of results.filter((x) => x.half)) {
    const worst = Math.max(...p95Rows(r.half.rows).map((x) => x.p95 ?? 0));
    console.log(
      `target: ${r.size} every non-login p95 < ${HALF_P95_TARGET_MS} ms at half capacity: worst ${fmt(worst, 1)} ms ${verdict(worst < HALF_P95_TARGET_MS)}`,
    );
  }
  for (const r of results) {
    const [busiest, most] = Object.entries(r.idleWakeups).sort((a, b) => b[1] - a[1])[0] ?? ['none', 0];
    console.log(
      `target: ${r.size} every Node service wakes < ${IDLE_WAKEUPS_TARGET} times a second idle: most ${busiest} ${fmt(most, 1)} ${verdict(most < IDLE_WAKEUPS_TARGET)}`,
    );
  }
  for (const r of results.filter((x) => x.plans)) {
    const unindexed = r.plans.filter((p) => p.indexed === false);
    console.log(
      `target: ${r.size} every query the mix issues served by an index: ${unindexed.length} of ${r.plans.length} shapes not ${verdict(unindexed.length === 0)}`,
    );
  }
}

/**
 * Keeps the figures of this run's sizes in the result file (RESULT), beside those of earlier runs of
 * other sizes: the capacity model (scripts/capacity.js) reads them.
 */
async function writeResults(results) {
  let file = { bench: 'journey', sizes: {} };
  try {
    file = JSON.parse(fs.readFileSync(RESULT, 'utf8'));
  } catch {
    // first run
  }
  for (const r of results) file.sizes[r.size] = r.result;
  await writeJson(RESULT, file);
  console.log(`\nthe figures: ${RESULT}`);
}

async function removeStreams() {
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
}

async function main() {
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      console.error(`\n${signal}: stopping what the bench started...`);
      void cleanUp().finally(() => process.exit(130));
    });
  console.log(
    `Journey bench: sizes ${SIZE_NAMES.join(', ')}; ${USERS} signed-in users; ${RATE}/s offered for ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up; run ${RUN}`,
  );
  // the data sets live in the local PostgreSQL cluster: one infra.sh would start for this run only
  // (in a temp dir) would take them with it when it stops
  const listening = await new Promise((resolve) => {
    const socket = require('node:net').connect(PG_PORT, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true))).once('error', () => resolve(false));
  });
  if (!listening)
    throw new Error(
      `no PostgreSQL on port ${PG_PORT}: start the local infrastructure first (npm run infra:up)`,
    );
  const db = await startDatabase('documentdb');
  console.log(`database: ${db.description} (the bench's own FerretDB, ${db.url})`);
  await removeStreams();
  cleanups.push(['remove the stream', removeStreams]);
  const results = [];
  for (const size of SIZE_NAMES) results.push(await benchSize(size, db));
  if (process.env.BENCH_SEED_ONLY !== 'true') {
    printSummary(results);
    await writeResults(results);
  }
}

if (require.main === module)
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => cleanUp());
