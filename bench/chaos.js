#!/usr/bin/env node
// Chaos against the production topology on this machine (deploy/local/start-cluster.js): virtual
// users, each on its own loopback address, register, sign in, create and review cards and read them
// back, while in phases every service replica and gateway is restarted one at a time (SIGTERM), one
// replica of each service is killed (SIGKILL) and a NATS node is restarted. Then it reconciles:
// every card whose creation was answered 2xx must exist with its word, and every review answered
// 2xx must be counted on its card. Prints a table per phase and the reconciliation; exits 1 when
// something acknowledged was lost or a rolling restart cost a request.
//   npm run chaos                    (CHAOS_USERS=12, CHAOS_PHASE_SECONDS=20)
//   CHAOS_SHORT=1 npm run chaos      (fewer users and shorter phases, as the test suite runs it)
// All traffic goes to 127.0.0.0/8 and stops by itself.
const { performance } = require('node:perf_hooks');
const { Agent, request } = require('undici');
const { startCluster } = require('../deploy/local/start-cluster');

const SHORT = process.env.CHAOS_SHORT === '1';
const USERS = Number(process.env.CHAOS_USERS ?? (SHORT ? 6 : 12));
const PHASE_MS = 1000 * Number(process.env.CHAOS_PHASE_SECONDS ?? (SHORT ? 6 : 20));

const byte = () => 2 + Math.floor(Math.random() * 250);
const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let phase = 'start';
const records = []; // { phase, method, status, ms, idempotent }
const cards = []; // { token, agent, id, word, reviews }

async function call(user, method, path, body) {
  const started = performance.now();
  let status;
  let json;
  try {
    const res = await request(`${user.base}${path}`, {
      method,
      dispatcher: user.agent,
      headers: {
        'content-type': 'application/json',
        ...(user.token && { authorization: `Bearer ${user.token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    status = res.statusCode;
    json = await res.body.json().catch(() => undefined);
  } catch (err) {
    status = `net:${err.code ?? err.name}`;
  }
  records.push({
    phase,
    method,
    path: path.replace(/[0-9a-f-]{36}/g, ':id'),
    status,
    ms: performance.now() - started,
    idempotent: method === 'GET' || method === 'PUT' || method === 'DELETE',
  });
  return { status, json };
}

async function virtualUser(base, control) {
  const user = {
    base,
    agent: new Agent({ localAddress: `127.${byte()}.${byte()}.${byte()}` }),
    token: undefined,
    cards: [],
  };
  const name = `chaos${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
  const creds = { email: `${name}@example.com`, password: 'Secret123' };
  while (control.running) {
    if (!user.token) {
      const reg = await call(user, 'POST', '/api/v1/auth/register', {
        ...creds,
        username: name.slice(0, 20),
      });
      if (reg.status === 201) user.token = reg.json?.data?.accessToken;
      else if (reg.status === 409) {
        const login = await call(user, 'POST', '/api/v1/auth/login', creds);
        if (login.status === 200) user.token = login.json?.data?.accessToken;
      }
      if (!user.token) await sleep(500);
      continue;
    }
    const roll = Math.random();
    if (roll < 0.35 || user.cards.length === 0) {
      const word = `w${Math.random().toString(36).slice(2, 10)}`;
      const made = await call(user, 'POST', '/api/flashcards', {
        word,
        translation: 't',
        definition: 'd',
        example: `A ${word}.`,
      });
      const id = made.json?.data?.id ?? made.json?.data?.flashcard?.id;
      if (made.status === 200 && made.json?.success && id) {
        const card = { user, id, word, reviews: 0, unsure: 0 };
        user.cards.push(card);
        cards.push(card);
      }
    } else if (roll < 0.7) {
      const card = user.cards[Math.floor(Math.random() * user.cards.length)];
      const review = await call(user, 'POST', `/api/flashcards/${card.id}/review`, { confidence: 2 });
      if (review.status === 200) card.reviews++;
      else if (typeof review.status !== 'number' || review.status >= 500) card.unsure++; // may have been applied
    } else if (roll < 0.85) {
      await call(user, 'GET', '/api/flashcards/due');
    } else {
      const card = user.cards[Math.floor(Math.random() * user.cards.length)];
      await call(user, 'GET', `/api/flashcards/${card.id}`);
    }
  }
  return user;
}

async function main() {
  const cluster = await startCluster({ quiet: true });
  const { services, restart } = cluster;
  const phases = [
    ['warm-up', async () => sleep(PHASE_MS)],
    [
      'rolling restart (SIGTERM, one replica at a time)',
      async () => {
        for (const [name] of [...services, ['gateway']])
          for (const i of [1, 2]) await restart(`${name}-${i}`, 'SIGTERM');
      },
    ],
    [
      'SIGKILL one replica of each service',
      async () => {
        for (const [name] of services) await restart(`${name}-1`, 'SIGKILL');
      },
    ],
    [
      'restart one NATS node',
      async () => restart(`nats-${cluster.natsNodes[1].name}`, 'SIGTERM', { downMs: 2000 }),
    ],
    ['cool-down', async () => sleep(PHASE_MS / 2)],
  ];
  const control = { running: true };
  const users = Array.from({ length: USERS }, () => virtualUser(cluster.url, control));
  const timings = {};
  try {
    for (const [name, run] of phases) {
      phase = name;
      const started = Date.now();
      await run();
      // each phase lasts at least PHASE_MS of traffic
      const left = PHASE_MS - (Date.now() - started);
      if (left > 0) await sleep(left);
      timings[name] = Date.now() - started;
    }
  } finally {
    control.running = false; // each user's loop ends after its request in flight
  }
  await Promise.all(users);
  phase = 'reconcile';
  // reconcile through the ingress, with each card's own user
  let lost = 0;
  let reviewsLost = 0;
  const unreadable = new Map();
  for (const card of cards) {
    const got = await call(card.user, 'GET', `/api/flashcards/${card.id}`);
    const stored = got.json?.data;
    if (got.status !== 200 && got.status !== 404)
      unreadable.set(got.status, (unreadable.get(got.status) ?? 0) + 1);
    if (got.status !== 200 || stored?.word !== card.word) lost++;
    else if ((stored.timesReviewed ?? 0) < card.reviews) reviewsLost++;
  }
  await cluster.stop();
  for (const c of cards) c.user.agent.close();

  const rows = [];
  for (const name of [...phases.map(([n]) => n)]) {
    const rs = records.filter((r) => r.phase === name);
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    const failed = rs.filter((r) => typeof r.status !== 'number' || r.status >= 500);
    rows.push({
      phase: name,
      seconds: Math.round((timings[name] ?? 0) / 1000),
      requests: rs.length,
      'failed (5xx/network)': failed.length,
      'of them non-idempotent': failed.filter((r) => !r.idempotent).length,
      p50: Math.round(percentile(ms, 50)),
      p95: Math.round(percentile(ms, 95)),
      p99: Math.round(percentile(ms, 99)),
    });
  }
  console.table(rows);
  const failedBy = new Map();
  for (const r of records)
    if (typeof r.status !== 'number' || r.status >= 500) {
      const key = `${r.phase.split(' ')[0]} ${r.method} ${r.path} → ${r.status}`;
      failedBy.set(key, (failedBy.get(key) ?? 0) + 1);
    }
  if (failedBy.size) console.log('failures:', Object.fromEntries([...failedBy].sort((a, b) => b[1] - a[1])));
  const acknowledgedReviews = cards.reduce((n, c) => n + c.reviews, 0);
  console.log(
    `reconciliation: ${cards.length} cards acknowledged, ${lost} lost; ${acknowledgedReviews} reviews acknowledged, ${reviewsLost} cards missing acknowledged reviews`,
  );
  if (unreadable.size)
    console.log('reconciliation reads that failed (status: count):', Object.fromEntries(unreadable));
  const rolling = rows.find((r) => r.phase.startsWith('rolling'));
  const failures = [];
  if (lost > 0) failures.push(`${lost} acknowledged cards lost`);
  if (reviewsLost > 0) failures.push(`${reviewsLost} cards lost acknowledged reviews`);
  if (rolling['failed (5xx/network)'] > 0)
    failures.push(`${rolling['failed (5xx/network)']} requests failed during the rolling restart`);
  const kill = rows.find((r) => r.phase.startsWith('SIGKILL'));
  if (kill['failed (5xx/network)'] > kill['of them non-idempotent'])
    failures.push('idempotent requests failed in the SIGKILL phase');
  if (failures.length) {
    console.error(`chaos: FAILED: ${failures.join('; ')}`);
    process.exitCode = 1;
  } else console.log('chaos: passed');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
