#!/usr/bin/env node
// Webhook latency: time from publishing user.created on NATS to the webhook receiver getting the
// signed request, at a steady rate (default 200 events/s). The notifications service runs in a
// child process (its own event loop) on an isolated stream, with a private FerretDB (a process of
// this bench on a temporary directory: the shared one crashed three times under this load while
// the bench's database was being created); this process publishes and receives on loopback.
// Collections and indexes exist before the load starts. Prints p50/p95/p99/max and the sustained
// delivery rate. Needs `npx tsc -b` and the local NATS and Redis (deploy/local/infra.sh up).
// What the measured path does, and the figures before and after the hot path (send first, then one
// grouped insert): bench/README.md, "Webhook latency", and ADR 0012. 22 Nov 2026, load average ~3:
// 200/s → p50 3.0–3.9 ms, p95 21–44 ms, p99 40–74 ms (previous design: 11 deliveries/s, p50 25 s);
// the machine is shared, so run "before" and "after" alternately and note the load average.
//   flock /tmp/bench.lock node bench/webhook-latency.js     BENCH_RATE=200 BENCH_SECONDS=10
//   BENCH_SHARED_DB=1: use MONGO_URL / the shared FerretDB instead of a private one
//   BENCH_NOTIFICATIONS_DIST=<dir>: run another build of the service (before/after comparisons)
//   BENCH_DEBUG=1: the service prints consumed events, deliveries stored and succeeded every 2 s
const http = require('node:http');
const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const readline = require('node:readline');

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const tag = `bench${Date.now().toString(36)}`;
const env = {
  ...process.env,
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  EVENTS_STREAM: tag.toUpperCase(),
  EVENTS_SUBJECT_PREFIX: tag,
  NOTIFICATIONS_HTTP_PORT: '0',
  NOTIFICATIONS_MONGO_DB: `${tag}_notifications`,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
};

/** Child mode: run the service and print its URL. */
async function runService() {
  const { startService } = require('../libs/bootstrap/dist');
  const { connectMongo } = require('../libs/mongo/dist');
  // collections first, one at a time: FerretDB creates a table per collection, and creating them
  // under load is what broke the shared server
  const pre = await connectMongo(process.env.MONGO_URL, process.env.NOTIFICATIONS_MONGO_DB);
  const collections = ['notifications', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'];
  for (const name of collections) await pre.connection.createCollection(name).catch(() => undefined);
  await pre.close();
  // BENCH_NOTIFICATIONS_DIST: another build of the service, to compare two versions in the same conditions
  const dist = process.env.BENCH_NOTIFICATIONS_DIST ?? path.join(__dirname, '../services/notifications/dist');
  const { loadServiceConfig } = require(`${dist}/config`);
  const { defineNotificationsService } = require(`${dist}/start`);
  const service = await startService(
    defineNotificationsService(loadServiceConfig(process.env), {
      mailer: { send: async () => undefined },
      // notifications runs alone here: the bench's scope-all endpoint owner stands as an admin
      owners: { isAdmin: async () => true },
    }),
  );
  // the repositories create their indexes at boot, in the background: let them finish before the load
  await new Promise((r) => setTimeout(r, 1000));
  console.log(`ready ${service.httpUrl}`);
  let debugTimer;
  if (process.env.BENCH_DEBUG) {
    // where the backlog sits: consumed events, queued deliveries, sent deliveries
    const db = service.deps.mongo.connection;
    debugTimer = setInterval(async () => {
      const counts = Promise.all([
        db.collection('notifications').countDocuments({}),
        db.collection('webhook_deliveries').countDocuments({}),
        db.collection('webhook_deliveries').countDocuments({ status: 'succeeded' }),
        service.deps.nats.jsm.consumers.info(process.env.EVENTS_STREAM, 'notifications'),
      ]);
      const [n, d, ok, consumer] = await counts.catch(() => []);
      if (consumer === undefined) return; // shutting down
      console.error(
        `[service] stream: waiting ${consumer.num_pending} in flight ${consumer.num_ack_pending} redelivered ${consumer.num_redelivered};` +
          ` notifications ${n} deliveries ${d} succeeded ${ok}`,
      );
    }, 2000);
    debugTimer.unref();
  }
  process.on('SIGTERM', async () => {
    clearInterval(debugTimer);
    // stop first, then clean up: dropping a database the service still writes to breaks FerretDB
    const { MONGO_URL, mongoDb, NATS_URL, EVENTS_STREAM } = service.deps.config;
    await service.stop();
    const { connectMongo } = require('../libs/mongo/dist');
    const { connectNats } = require('../libs/events/dist');
    const mongo = await connectMongo(MONGO_URL, mongoDb);
    await mongo.connection.dropDatabase().catch(() => undefined);
    await mongo.close();
    const nats = await connectNats(NATS_URL, { name: 'bench-cleanup' });
    await nats.jsm.streams.delete(EVENTS_STREAM).catch(() => undefined);
    await nats.close();
    process.exit(0);
  });
}

let onFailure = async () => undefined;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  // same binary and flags as deploy/local/infra.sh, on a temporary directory
  const { startFerretDb } = require('../libs/testing/dist');
  const ferret = process.env.BENCH_SHARED_DB ? undefined : await startFerretDb();
  if (ferret) env.MONGO_URL = ferret.url;
  onFailure = async () => ferret?.dispose();
  const child = spawn(process.execPath, [path.join(__dirname, 'webhook-latency.js'), 'service'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const serviceUrl = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
    readline
      .createInterface({ input: child.stdout })
      .on('line', (l) => l.startsWith('ready ') && resolve(l.slice(6)));
  });

  const sentAt = new Map();
  const latencies = [];
  let received = 0;
  let lastReceivedAt = 0;
  const receiver = http.createServer((req, res) => {
    const at = performance.now();
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      const t0 = sentAt.get(id);
      if (t0 !== undefined) {
        received++;
        lastReceivedAt = at;
        if (received > WARMUP) latencies.push(at - t0);
        sentAt.delete(id);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  const { createAccessTokens } = require('../libs/auth/dist');
  const { DEV_JWT_SECRET } = require('../libs/bootstrap/dist');
  const admin = createAccessTokens(process.env.JWT_SECRET ?? DEV_JWT_SECRET).sign({
    sub: randomUUID(),
    email: 'bench@example.com',
    username: 'bench',
    role: 'admin',
    subscription_status: 'active',
  });
  const reg = await fetch(`${serviceUrl}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ url: hookUrl, events: ['user.created'], scope: 'all' }),
  });
  if (reg.status !== 201) throw new Error(`registration failed: ${reg.status} ${await reg.text()}`);

  const { connectNats, eventBusConfig, createEventPublisher } = require('../libs/events/dist');
  const { makeEvent } = require('../libs/contracts/dist');
  const nats = await connectNats(env.NATS_URL ?? 'nats://127.0.0.1:4222', { name: 'bench' });
  const publisher = createEventPublisher(
    nats,
    eventBusConfig({ streamName: env.EVENTS_STREAM, subjectPrefix: env.EVENTS_SUBJECT_PREFIX }),
  );

  const total = RATE * SECONDS + WARMUP;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const userId = randomUUID();
    const event = makeEvent('user.created', {
      userId,
      email: `${userId}@example.com`,
      username: `b${i}`,
      authProvider: 'password',
    });
    sentAt.set(event.id, performance.now());
    publisher.publish(event).catch((err) => console.error('publish failed', err.message));
  }
  const achievedRate = total / ((performance.now() - started) / 1000);
  const deadline = Date.now() + 60_000;
  while (received < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

  latencies.sort((a, b) => a - b);
  const f = (ms) => `${ms.toFixed(1)} ms`;
  console.log(
    `webhook latency, user.created publish → receiver, ${total - WARMUP} events at ${achievedRate.toFixed(0)}/s` +
      ` (target ${RATE}/s; ${WARMUP} warm-up events excluded)`,
  );
  const throughput = received / ((lastReceivedAt - started) / 1000 || 1);
  console.log(`  delivered ${received}/${total} (sustained ${throughput.toFixed(1)} deliveries/s)`);
  if (latencies.length > 0)
    console.log(
      `  p50 ${f(pct(latencies, 50))}  p95 ${f(pct(latencies, 95))}  p99 ${f(pct(latencies, 99))}  max ${f(latencies.at(-1))}`,
    );
  await nats.close();
  receiver.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await ferret?.dispose();
  const ms = (v) => (v === undefined ? null : Math.round(v * 10) / 10);
  await require('./support').writeResult('webhook-latency', {
    database: process.env.BENCH_SHARED_DB === '1' ? 'MONGO_URL' : 'private FerretDB',
    runs: [
      {
        run: `${RATE}/s`,
        loadAverage: Math.round(require('node:os').loadavg()[0] * 10) / 10,
        delivered: received,
        published: total,
        sustainedPerS: Math.round(throughput * 10) / 10,
        p50Ms: ms(pct(latencies, 50)),
        p95Ms: ms(pct(latencies, 95)),
        p99Ms: ms(pct(latencies, 99)),
        maxMs: ms(latencies.at(-1)),
      },
    ],
  });
}

if (process.argv[2] === 'service') runService().catch((err) => (console.error(err), process.exit(1)));
else
  main().catch(async (err) => {
    console.error(err);
    await onFailure().catch(() => undefined);
    process.exit(1);
  });
