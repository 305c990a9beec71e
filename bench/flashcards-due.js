#!/usr/bin/env node
// GET /api/flashcards/due?limit=20 on the flashcards service itself (no gateway), for one user holding
// 1k, 10k and 100k cards, all in one database (so each figure is also "with other users' cards around").
// The service runs as its own process from services/flashcards/dist; autocannon loads it from this one.
// Needs `npm run build` and the local infrastructure (`npm run infra:up`).
// BENCH_SECONDS (default 5) per size and round, BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 50),
// BENCH_SIZES (default 1000,10000,100000).
// Seeded cards are kept in the database lingua_flashcards_bench, so later runs skip the seeding.
// The due answer comes from the service's Redis read model (services/flashcards/src/data-access/due-index.ts):
// after seeding MongoDB, each user's index is built through the service's own rebuild path (the one a
// first due request would take), and that time is printed separately. BENCH_DUE_INDEX=false runs the
// service without it (due queries on the database only). An index found complete from an earlier run
// (ready marker, every active card in its sorted set) is kept; BENCH_REBUILD_INDEX=true rebuilds anyway.
// Before/after in the same conditions: BENCH_BASELINE=<a main.js of an earlier build>, e.g. a copy of
// services/flashcards/dist made before a change (`cp -r services/flashcards/dist /tmp/flashcards-before`,
// then BENCH_BASELINE=/tmp/flashcards-before/main.js). Both services then run side by side (the copy
// finds the packages through NODE_PATH) and take turns within every round, so the shared machine's
// load swings hit both alike; one table per build is printed, plus the after/before ratios.
// "CPU ms/req" is the service process's own CPU time (Linux /proc) per answered request: the cost
// that latency at 50 connections follows once the two cores are saturated, and steadier than latency.
// After the services start, the bench waits until the local FerretDB is idle: their start-up work on it
// (the outbox relay's first safety-net scan reads all 111k cards on FerretDB v1, ~15 s of a core) would
// otherwise run inside the measurement. The scan repeats every ~150 s and can still overlap a window.
// The service runs with LOG_LEVEL=warn; its own variables (e.g. FLASHCARDS_ACCESS_LOG_SAMPLE_RATE) pass through.
// Last measured 2026-11-22 on the shared 2-core machine (figures in bench/README.md, "Flashcards due reads"): before the
// hot-path work 1556-1839 req/s, p95 44-58 ms, 0.50-0.53 CPU ms/req (busy machine); on a quiet machine, with
// FLASHCARDS_ACCESS_LOG_SAMPLE_RATE=0.01: 4322-4811 req/s, p95 16.5-19.0 ms, 0.18-0.20 CPU ms/req; ratio 0.93-0.98x.
// Since the access log change (no pino-http), the default (every request): 4721-5083 req/s, p95 16.2-18.0 ms.
const path = require('node:path');
const {
  cpuMsOf,
  freePort,
  percentile,
  startProcess,
  waitForQuietDatabase,
  writeResult,
} = require('./support');
const autocannon = require('autocannon');
const { MongoClient } = require('mongodb');
const mongoose = require('mongoose');
const { createClient } = require('redis');
const {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  createAccessTokens,
  createAssertionSigner,
  devAssertionKey,
} = require('../libs/auth/dist');
const { createDueIndex, dueIndexKeys } = require('../services/flashcards/dist/data-access/due-index');
const { dueIndexSource } = require('../services/flashcards/dist/data-access/card.repository');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const MONGO_URL = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DUE_INDEX = process.env.BENCH_DUE_INDEX !== 'false';
const REBUILD_INDEX = process.env.BENCH_REBUILD_INDEX === 'true';
const BASELINE = process.env.BENCH_BASELINE;
// BENCH_COMPARE_DUE_INDEX=true: the same build twice, side by side, "before" with the Redis read model
// and "after" without it (due queries on the database's compound index), plus the query plan
const COMPARE_DUE_INDEX = process.env.BENCH_COMPARE_DUE_INDEX === 'true';
const SEED_BATCH = 10_000;
const DB = process.env.BENCH_DB ?? 'lingua_flashcards_bench';
const CHECK_TIMEOUT_S = Number(process.env.BENCH_CHECK_TIMEOUT_S ?? 30);
const DEV_JWT_SECRET = 'lingua-local-development-secret-do-not-use-in-production';
const DAY = 86_400_000;

const userIdFor = (size) => `00000000-0000-4000-8000-${String(size).padStart(12, '0')}`;
const cardId = (size, i) => `${String(size).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** One user's cards: due dates spread from 60 days ago to 60 days ahead, so about half are due. */
async function seed(db, size) {
  const cards = db.collection('cards');
  const userId = userIdFor(size);
  const have = await cards.countDocuments({ userId });
  if (have === size) return false;
  await cards.deleteMany({ userId });
  const now = Date.now();
  for (let start = 0; start < size; start += SEED_BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(size, start + SEED_BATCH); i++) {
      const t = new Date(now - 60 * DAY + ((i * 7919) % size) * ((120 * DAY) / size));
      batch.push({
        _id: cardId(size, i),
        userId,
        setId: null,
        word: `word${i}`,
        wordKey: `word${i}`,
        translation: `translation ${i}`,
        definition: `definition ${i}`,
        partOfSpeech: 'noun',
        pronunciation: null,
        example: `An example with word${i}.`,
        exampleTranslation: null,
        synonyms: '[]',
        tags: [],
        difficultyLevel: 'B1',
        difficulty: 'intermediate',
        masteryLevel: i % 101,
        timesReviewed: i % 7,
        timesCorrect: i % 5,
        isFavorite: i % 10 === 0,
        isArchived: i % 50 === 0,
        easinessFactor: 2.5,
        repetitions: i % 5,
        intervalDays: 2 ** (i % 5),
        lastReviewedAt: null,
        nextReviewDate: t,
        fsrs: null,
        filledQuestionText: null,
        createdAt: new Date(now - DAY),
        updatedAt: new Date(now - DAY),
      });
    }
    await cards.insertMany(batch, { ordered: false });
  }
  return true;
}

/** Builds each user's Redis due index from the database with the service's own rebuild code. */
async function buildDueIndexes() {
  const connection = await mongoose.createConnection(MONGO_URL, { dbName: DB }).asPromise();
  const client = await createClient({ url: REDIS_URL }).connect();
  const quiet = { warn: () => undefined, error: (o, m) => console.error(m, o) };
  try {
    const index = createDueIndex({
      client,
      source: dueIndexSource(connection),
      logger: quiet,
      namespace: DB, // the service names its keys after its database
      ttlSeconds: 7 * 86_400,
      waitMs: 120_000,
    });
    const times = {};
    for (const size of SIZES) {
      const k = dueIndexKeys(DB, userIdFor(size));
      const active = size - Math.ceil(size / 50); // seed() archives every 50th card
      if (!REBUILD_INDEX && (await client.exists(k.ready)) === 1 && (await client.zCard(k.due)) === active) {
        times[size] = 'kept from an earlier run';
        continue;
      }
      const t = Date.now();
      if (!(await index.rebuild(userIdFor(size)))) throw new Error(`due index of the ${size} user not built`);
      times[size] = `${((Date.now() - t) / 1000).toFixed(1)} s`;
    }
    return times;
  } finally {
    await client.close();
    await connection.close();
  }
}

const ROOT_MODULES = path.join(__dirname, '../node_modules');

async function startService(script, name, dueIndex = DUE_INDEX) {
  const port = await freePort();
  return startProcess({
    script,
    env: {
      FLASHCARDS_HTTP_PORT: String(port),
      FLASHCARDS_GRPC_PORT: '0',
      FLASHCARDS_METRICS_PORT: '0',
      FLASHCARDS_MONGO_DB: DB,
      FLASHCARDS_DUE_INDEX: String(dueIndex),
      // a baseline copy outside the repository finds the packages here
      NODE_PATH: [ROOT_MODULES, process.env.NODE_PATH].filter(Boolean).join(path.delimiter),
    },
    port,
    name,
  });
}

async function stopService(svc) {
  // a service still waiting on the database gets its grace period, then goes
  await new Promise((resolve) => {
    const timer = setTimeout(() => {
      svc.child.kill('SIGKILL');
      resolve();
    }, 12_000);
    svc.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    svc.child.kill('SIGTERM');
  });
}

const pct = percentile;

/**
 * What the gateway forwards for the size's user: the bearer token and the service's internal assertion
 * (ADR 0001: the service takes the caller from it), signed with the development keys the service uses.
 */
const headersFor = (size) => {
  const { token, claims } = createAccessTokens(DEV_JWT_SECRET).sign({
    sub: userIdFor(size),
    email: 'bench@example.com',
    username: 'bench',
    role: 'user',
    subscription_status: 'inactive',
  });
  const keys = Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [a, devAssertionKey(a)]));
  const assertion = createAssertionSigner(keys, { ttlSeconds: 3600 }).sign('flashcards', claims);
  return { authorization: `Bearer ${token}`, [ASSERTION_HEADER]: assertion };
};

/** One request first: its answer must be right; a size whose first answer does not come in time is skipped. */
async function check(url, size) {
  try {
    const res = await fetch(`${url}/api/flashcards/due?limit=20`, {
      headers: headersFor(size),
      signal: AbortSignal.timeout(CHECK_TIMEOUT_S * 1000),
    });
    const body = await res.json();
    if (res.status !== 200 || body.data.count !== 20) throw new Error(`unexpected answer ${res.status}`);
    return null;
  } catch (err) {
    if (err.message.startsWith('unexpected')) throw err;
    return `first request: ${err.name}`;
  }
}

/** One load of DURATION_S seconds on one size: the response times, counters and the service's CPU time. */
async function load(svc, size) {
  const opts = {
    url: `${svc.url}/api/flashcards/due?limit=20`,
    headers: headersFor(size),
    connections: CONNECTIONS,
    timeout: 30,
  };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const times = [];
  const instance = autocannon({ ...opts, duration: DURATION_S });
  instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  const cpuBefore = cpuMsOf([svc.child.pid]);
  const result = await instance;
  const cpuAfter = cpuMsOf([svc.child.pid]);
  return {
    times,
    seconds: DURATION_S,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  };
}

function row(size, runs, note) {
  const times = runs.flatMap((r) => r.times).sort((a, b) => a - b);
  const at = (p) => (times.length ? pct(times, p).toFixed(1) : 'n/a');
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const cpu = runs.every((r) => r.cpuMs !== null) ? runs.reduce((n, r) => n + r.cpuMs, 0) : null;
  return {
    'cards of the user': size,
    'req/s': seconds ? Math.round((times.length / seconds) * 10) / 10 : 0,
    'p50 ms': at(50),
    'p95 ms': at(95),
    'p99 ms': at(99),
    'CPU ms/req': cpu !== null && times.length ? (cpu / times.length).toFixed(3) : 'n/a',
    answered: times.length,
    'non-2xx': runs.reduce((n, r) => n + r.non2xx, 0),
    'errors/timeouts': runs.reduce((n, r) => n + r.errors, 0),
    ...(note && { note }),
  };
}

function printRatio(rows) {
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (first && last && first !== last && first['p95 ms'] !== 'n/a' && last['p95 ms'] !== 'n/a')
    console.log(
      `p95 ratio ${last['cards of the user']} / ${first['cards of the user']} cards: ${(Number(last['p95 ms']) / Number(first['p95 ms'])).toFixed(2)}x`,
    );
}

/** The due query as the repository sends it, explained: which index serves it, and how long it took. */
async function printDuePlan() {
  const mongo = await MongoClient.connect(MONGO_URL);
  try {
    const size = SIZES[SIZES.length - 1];
    const plan = await mongo
      .db(DB)
      .collection('cards')
      .find({ userId: userIdFor(size), isArchived: false, nextReviewDate: { $lte: new Date() } })
      .sort({ nextReviewDate: 1, createdAt: 1, _id: 1 })
      .limit(20)
      .explain('executionStats');
    const text = JSON.stringify(plan);
    const index = /"indexName":"([^"]+)"/.exec(text)?.[1] ?? /"Index Name":"([^"]+)"/.exec(text)?.[1];
    console.log(`due query plan (${size}-card user): index ${index ?? 'NONE (scan)'}`);
    console.log(JSON.stringify(plan.queryPlanner?.winningPlan ?? plan, null, 1).slice(0, 2500));
  } finally {
    await mongo.close();
  }
}

async function main() {
  const mongo = await MongoClient.connect(MONGO_URL);
  const seeding = {};
  try {
    const db = mongo.db(DB);
    for (const size of SIZES) {
      const t = Date.now();
      const seeded = await seed(db, size);
      seeding[size] = seeded ? `${((Date.now() - t) / 1000).toFixed(1)} s` : 'kept from an earlier run';
      console.error(`seeded ${size} cards: ${seeding[size]}`);
    }
    console.error(`total cards in ${DB}: ${await db.collection('cards').countDocuments()}`);
  } finally {
    await mongo.close();
  }
  const indexTimes = DUE_INDEX || COMPARE_DUE_INDEX ? await buildDueIndexes() : {};
  for (const size of Object.keys(indexTimes))
    console.error(`due index of the ${size}-card user: ${indexTimes[size]}`);
  const afterScript = path.join(__dirname, '../services/flashcards/dist/main.js');
  const builds = COMPARE_DUE_INDEX
    ? [
        { label: 'before: Redis due read model', script: afterScript, dueIndex: true },
        { label: 'after: database only (compound index)', script: afterScript, dueIndex: false },
      ]
    : [
        ...(BASELINE ? [{ label: `before (${BASELINE})`, script: path.resolve(BASELINE) }] : []),
        {
          label: BASELINE ? 'after (services/flashcards/dist)' : '',
          script: afterScript,
        },
      ];
  const services = [];
  const tables = [];
  try {
    for (const b of builds)
      services.push(await startService(b.script, `flashcards service ${b.label}`.trim(), b.dueIndex));
    // the service has created its indexes by now: show how the database answers the due query
    await printDuePlan();
    console.error(
      `waited ${((await waitForQuietDatabase()) / 1000).toFixed(0)} s for the database to settle`,
    );
    const notes = {};
    for (const size of SIZES) for (const svc of services) notes[size] ??= await check(svc.url, size);
    // the sizes (and builds) take turns, round after round, so a change in the shared machine's load hits them alike
    const runs = services.map(() => Object.fromEntries(SIZES.map((size) => [size, []])));
    for (let round = 0; round < ROUNDS; round++)
      for (const size of SIZES) {
        if (notes[size]) continue;
        const order = services.map((_, i) => i);
        if (round % 2 === 1) order.reverse();
        for (const i of order) runs[i][size].push(await load(services[i], size));
      }
    for (let i = 0; i < services.length; i++)
      tables.push(SIZES.map((size) => row(size, runs[i][size], notes[size])));
  } finally {
    for (const svc of services) await stopService(svc);
  }
  console.log(
    `GET /api/flashcards/due?limit=20, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per size, service called directly, ` +
      (COMPARE_DUE_INDEX
        ? 'Redis due index against database only'
        : `due index ${DUE_INDEX ? 'in Redis' : 'off (database only)'}`),
  );
  console.table(
    SIZES.map((size) => ({
      'cards of the user': size,
      'MongoDB seeding': seeding[size],
      'Redis index build': indexTimes[size] ?? 'n/a',
    })),
  );
  tables.forEach((rows, i) => {
    if (builds[i].label) console.log(builds[i].label);
    console.table(rows);
    printRatio(rows);
  });
  if (tables.length === 2)
    console.table(
      SIZES.map((size, j) => {
        const [b, a] = [tables[0][j], tables[1][j]];
        const ratio = (k) =>
          Number(b[k]) > 0 && Number(a[k]) >= 0 ? (Number(a[k]) / Number(b[k])).toFixed(2) + 'x' : 'n/a';
        return {
          'cards of the user': size,
          'req/s after/before': ratio('req/s'),
          'p95 after/before': ratio('p95 ms'),
          'CPU/req after/before': ratio('CPU ms/req'),
        };
      }),
    );
  const figure = (v) => (v === undefined || Number.isNaN(Number(v)) ? null : Number(v));
  await writeResult('flashcards-due', {
    connections: CONNECTIONS,
    rounds: ROUNDS,
    seconds: DURATION_S,
    builds: tables.map((rows, i) => ({
      label: builds[i].label || 'services/flashcards/dist',
      rows: rows.map((r) => ({
        cards: r['cards of the user'],
        reqPerS: figure(r['req/s']),
        p50Ms: figure(r['p50 ms']),
        p95Ms: figure(r['p95 ms']),
        p99Ms: figure(r['p99 ms']),
        cpuMsPerReq: figure(r['CPU ms/req']),
        ...(r.note && { note: r.note }),
      })),
    })),
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
