#!/usr/bin/env node
// GET /api/flashcards/due?limit=20 on the flashcards service itself (no gateway), for one user holding
// 1k, 10k and 100k cards, all in one database (so each figure is also "with other users' cards around").
// The service runs as its own process from services/flashcards/dist; autocannon loads it from this one.
// Needs `npm run build` and the local infrastructure (`npm run infra:up`).
// BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 50), BENCH_SIZES (default 1000,10000,100000).
// Seeded cards are kept in the database lingua_flashcards_bench, so later runs skip the seeding.
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const autocannon = require('autocannon');
const { MongoClient } = require('mongodb');
const { createAccessTokens } = require('../libs/auth/dist');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const MONGO_URL = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
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
  if (have === size) return;
  await cards.deleteMany({ userId });
  const now = Date.now();
  for (let start = 0; start < size; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(size, start + 1000); i++) {
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
}

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function startService() {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(__dirname, '../services/flashcards/dist/main.js')], {
    env: {
      ...process.env,
      FLASHCARDS_HTTP_PORT: String(port),
      FLASHCARDS_GRPC_PORT: '0',
      FLASHCARDS_MONGO_DB: DB,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/health/ready`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('flashcards service did not become ready');
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function load(url, size) {
  const { token } = createAccessTokens(DEV_JWT_SECRET).sign({
    sub: userIdFor(size),
    email: 'bench@example.com',
    username: 'bench',
    role: 'user',
    subscription_status: 'inactive',
  });
  const target = `${url}/api/flashcards/due?limit=20`;
  // one request first: its answer must be right, and on a database that cannot answer in time the
  // size is reported as such instead of queueing 50 connections of doomed requests
  let check;
  try {
    check = await fetch(target, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(CHECK_TIMEOUT_S * 1000),
    });
  } catch (err) {
    return {
      'cards of the user': size,
      'req/s': 0,
      'p50 ms': 'n/a',
      'p95 ms': 'n/a',
      'p99 ms': 'n/a',
      note: `first request: ${err.name}`,
    };
  }
  const body = await check.json();
  if (check.status !== 200 || body.data.count !== 20) throw new Error(`unexpected answer ${check.status}`);
  const opts = {
    url: target,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    timeout: 30,
  };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const times = [];
  const instance = autocannon({ ...opts, duration: DURATION_S });
  instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  const result = await instance;
  times.sort((a, b) => a - b);
  const at = (p) => (times.length ? pct(times, p).toFixed(1) : 'n/a');
  return {
    'cards of the user': size,
    'req/s': Math.round(result.requests.average * 10) / 10,
    'p50 ms': at(50),
    'p95 ms': at(95),
    'p99 ms': at(99),
    answered: times.length,
    'non-2xx': result.non2xx,
    'errors/timeouts': result.errors + result.timeouts,
  };
}

async function main() {
  const mongo = await MongoClient.connect(MONGO_URL);
  try {
    const db = mongo.db(DB);
    for (const size of SIZES) {
      const t = Date.now();
      await seed(db, size);
      console.error(`seeded ${size} cards (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
    console.error(`total cards in ${DB}: ${await db.collection('cards').countDocuments()}`);
  } finally {
    await mongo.close();
  }
  const svc = await startService();
  const rows = [];
  try {
    for (const size of SIZES) rows.push(await load(svc.url, size));
  } finally {
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
  console.log(
    `GET /api/flashcards/due?limit=20, ${CONNECTIONS} connections, ${DURATION_S} s per size, service called directly`,
  );
  console.table(rows);
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (first && last && first !== last && first['p95 ms'] !== 'n/a' && last['p95 ms'] !== 'n/a')
    console.log(
      `p95 ratio ${last['cards of the user']} / ${first['cards of the user']} cards: ${(Number(last['p95 ms']) / Number(first['p95 ms'])).toFixed(2)}x`,
    );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
