#!/usr/bin/env node
// Chaos against the production topology on this machine (deploy/local/start-cluster.js). Virtual
// users, each on its own loopback address, register, sign in, register a webhook endpoint, create,
// review and read cards, import decks, buy a subscription through the sandbox verifier, read their
// notifications and achievements, while in phases every service replica and gateway is restarted
// one at a time (SIGTERM), one replica of each service is killed (SIGKILL), a subscriptions replica
// is killed while it holds a store notification claimed but not applied (the Play Developer API
// stand-in holds its call), a NATS node, Redis and the database server are restarted, and the
// database server is killed and held down for minutes (CHAOS_DB_DOWN_MS) just as account deletions
// and purchases are on the bus. Then it reconciles through the ingress:
//   - every write answered 2xx is there with its content (cards, reviews, imported words,
//     subscriptions): 0 lost;
//   - every domain event of the workload (subscription.created, achievement.unlocked) reached the
//     webhook receiver, whose Standard Webhooks signature verified; a repeat only with the same
//     webhook-id; each achievement announced exactly once: 0 lost, 0 double-applied;
//   - 0 failed requests during the rolling restart; in the SIGKILL phase only non-idempotent
//     requests in flight at the kill may fail (the gateway retries idempotent ones);
//   - every store notification is applied once the store, retrying as Pub/Sub does (non-2xx:
//     again later), got a 2xx: the revoked purchase gives no access and the role follows: 0 unapplied;
//   - after the database outage (requests failing meanwhile are counted, not lost) every event is
//     handled by every consumer and none dead-lettered: the deleted accounts are erased in flashcards
//     and subscriptions, the bought subscriptions made their buyers subscribers: 0 lost events;
// and prints p50/p95/p99 per phase, then, after an optional soak, the RSS of every process.
//   npm run chaos                               (12 users, 20 s phases, a 10-minute soak)
//   CHAOS_SOAK_SECONDS=0 npm run chaos          (without the soak)
//   CHAOS_SHORT=1 npm run chaos                 (fewer users, shorter phases, one replica of each
//                                                restarted, no soak: what the test suite runs)
//   CHAOS_KILL_ROUNDS=5                         (the SIGKILL phase repeated: more kills, more evidence)
//   CHAOS_PORT_BASE=21000                       (consecutive ports from there, own databases)
//   CHAOS_DB_DOWN_MS=300000                     (how long the database stays down: 5 minutes, 1 in
//                                                the short run; each several times the retry budget
//                                                after which consumers used to give up: ~2.6 minutes
//                                                on the default schedule, 7.75 s on the short run's)
//   CHAOS_SERVICES_AT_ONCE=1                    (the restart phases restart every service's replica at
//                                                once, the AI's after them; the short run's default,
//                                                the full run 0)
//   CHAOS_STORE_LEASE_MS=10000                  (subscriptions' STORE_NOTIFICATION_LEASE_MS; the short
//                                                run's default, the full run keeps 30 s)
//   CHAOS_RETRY_BACKOFF_MS=250,500,1000         (the services' EVENTS_RETRY_BACKOFF_MS; the short
//                                                run's default, the full run keeps the services')
// Exits 1 when a check fails. All traffic goes to 127.0.0.0/8 and stops by itself.
const http = require('node:http');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
// undici's own FormData: its fetch does not frame the global one (another undici inside node)
const { Agent, FormData, fetch: undiciFetch, request } = require('undici');
const { Blob } = require('node:buffer');
const { Webhook } = require('standardwebhooks');
const { startCluster } = require('../deploy/local/start-cluster');
const { startPushSink } = require('../deploy/local/push-sink');
const { soakMemory, memoryLimits, overLimits } = require('./soak-memory');
const { localTime, writeResult } = require('./support');
const { randomBytes, randomUUID } = require('node:crypto');
const { connect: natsConnect } = require('@nats-io/transport-node');
const { jetstreamManager } = require('@nats-io/jetstream');
const { MongoClient } = require('mongodb');
const { DEFAULT_BACKOFF_MS, retryDelayMs } = require('@lingua/events');
// the Play Developer API stand-in of the subscriptions tests (node strips its types)
const { startPlayStandIn } = require('../services/subscriptions/test/support/play-stand-in.ts');

const SHORT = process.env.CHAOS_SHORT === '1';
const USERS = Number(process.env.CHAOS_USERS ?? (SHORT ? 6 : 12));
const PHASE_MS = 1000 * Number(process.env.CHAOS_PHASE_SECONDS ?? (SHORT ? 5 : 20));
const SOAK_MS = 1000 * Number(process.env.CHAOS_SOAK_SECONDS ?? (SHORT ? 0 : 600));
/**
 * The restart phases restart one replica of every service at the same time (each deployment still
 * loses one replica at a time, as in a `kubectl rollout restart` of all of them), except the AI
 * service, restarted after them: its readiness waits for ~1 GB of language data, and beside four
 * other boots and the load it once took over a minute. The short run does; the full run restarts one
 * service after another, so that a failure names its service.
 */
const SERVICES_AT_ONCE = (process.env.CHAOS_SERVICES_AT_ONCE ?? (SHORT ? '1' : '0')) === '1';
/**
 * How long a claimed store notification is held by a replica that died (STORE_NOTIFICATION_LEASE_MS):
 * the short run's 10 s lets the store's retries apply it within some 20 s; the full run keeps 30 s.
 */
const STORE_LEASE_MS = process.env.CHAOS_STORE_LEASE_MS ?? (SHORT ? '10000' : undefined);
/** Rounds of the SIGKILL phase (each kills one replica of every service): more rounds, more kills seen. */
const KILL_ROUNDS = Number(process.env.CHAOS_KILL_ROUNDS ?? 1);
/** In the soak each user keeps at most this many cards, so memory that grows is not more data. */
const SOAK_CARDS_PER_USER = 150;
/** The soak reads every process's RSS this often (bench/soak-memory.js judges the series). */
const RSS_EVERY_MS = 10_000;
const PORT_BASE = process.env.CHAOS_PORT_BASE ? Number(process.env.CHAOS_PORT_BASE) : undefined;
/** How long events may take to reach the receiver once the traffic has stopped. */
const DELIVERY_DEADLINE_MS = 90_000;
/**
 * The consumers' retry schedule (EVENTS_RETRY_BACKOFF_MS): the short run's is short, so that an
 * outage several times the old give-up budget fits in half a minute; the full run keeps the services' own.
 */
const RETRY_BACKOFF = process.env.CHAOS_RETRY_BACKOFF_MS ?? (SHORT ? '250,500,1000' : undefined);
/**
 * How long consumers used to retry a failed event before they dead-lettered it (maxAttempts of 5
 * deliveries, each followed by the schedule's delay): ~2.6 minutes on the default schedule. Today an
 * infrastructure failure is retried for as long as it lasts; the outage must outlast this budget to
 * show it.
 */
const OLD_GIVE_UP_MS = [1, 2, 3, 4, 5].reduce(
  (sum, n) =>
    sum + retryDelayMs(n, RETRY_BACKOFF ? RETRY_BACKOFF.split(',').map(Number) : DEFAULT_BACKOFF_MS),
  0,
);
/**
 * How long the database stays down in its outage phase: several times OLD_GIVE_UP_MS (the short
 * run's 30 s is about four times its 7.75 s, and six times the drivers' 5 s server selection).
 */
const DB_DOWN_MS = Number(process.env.CHAOS_DB_DOWN_MS ?? (SHORT ? 30_000 : 300_000));
/** Accounts deleted, and subscriptions bought, as the database goes down (each). */
const OUTAGE_USERS = SHORT ? 3 : 6;
/** Store notifications whose claim a SIGKILL interrupts (one kill each). */
const STORE_NOTIFICATIONS = SHORT ? 2 : 4;
/** How long the store keeps retrying a notification (Pub/Sub: days; here past any claim lease). */
const STORE_RETRY_MS = 300_000;
/** Users whose study reminder falls in the same minute (set in the store phase, struck by the SIGKILL phase). */
const REMINDER_USERS = SHORT ? 12 : 30;
/**
 * How far ahead the reminder minute is set at least: twelve settings written side by side take well
 * under a second on a healthy system, and a write-through to flashcards is part of each answer (ADR 0028).
 */
const REMINDER_LEAD_MS = 10_000;
/** How long after the kills every reminder must have been pushed (a claim's lease is about a minute here). */
const REMINDER_DEADLINE_MS = 180_000;
/** Users who log out around the Redis primary's kill. */
const REDIS_LOGOUT_USERS = SHORT ? 6 : 16;
/** How long every consumer may take to handle every event once the traffic has stopped. */
const CONSUMERS_DEADLINE_MS = 300_000;
/** The bus the cluster runs (given to it, so the reconciliation can look into it). */
const BUS = { prefix: 'cluster', stream: 'CLUSTER_EVENTS' };
const PLAY_PACKAGE = 'com.lingua.app';
const PLAY_SKU = 'premium_monthly';
const PUSH_AUDIENCE = 'https://chaos.lingua.test/api/v1/subscriptions/notifications/google';
const PUSH_EMAIL = 'pubsub-push@lingua-chaos.iam.gserviceaccount.com';
/** The operator's way into the databases (start-cluster's: the same PostgreSQL behind another FerretDB). */
const ADMIN_MONGO_URL = process.env.MONGO_URL ?? `mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`;

const byte = () => 2 + Math.floor(Math.random() * 250);
const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const failed = (status) => typeof status !== 'number' || status >= 500;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

let phase = 'start';
const runStarted = Date.now();
/** A progress line with the seconds since the run began: where a run's time goes, in its log. */
const progress = (what) => console.log(`chaos: [${Math.round((Date.now() - runStarted) / 1000)} s] ${what}`);
const records = []; // { phase, method, path, status, ms, idempotent }
const users = [];
const cards = []; // { user, id, word, reviews }
const errorSamples = new Map(); // "METHOD route status" -> the first error body
const failedRequests = []; // { phase, at, method, path, status, requestId }: found in the services' logs by id
let phaseStarted = Date.now();
const steady = { on: false }; // set for the soak
let requestSeq = 0;

async function call(user, method, path, body, { form } = {}) {
  const started = performance.now();
  let status;
  let json;
  const requestId = `chaos-${process.pid}-${++requestSeq}`;
  const headers = {
    'x-request-id': requestId,
    ...(!form && { 'content-type': 'application/json' }),
    ...(user.token && { authorization: `Bearer ${user.token}` }),
  };
  try {
    if (form) {
      // multipart: undici's fetch frames a FormData body (its request() does not)
      const res = await undiciFetch(`${user.base}${path}`, {
        method,
        dispatcher: user.agent,
        headers,
        body: form,
        signal: AbortSignal.timeout(15_000),
      });
      status = res.status;
      json = await res.json().catch(() => undefined);
    } else {
      const res = await request(`${user.base}${path}`, {
        method,
        dispatcher: user.agent,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
        headersTimeout: 15_000,
        bodyTimeout: 15_000,
      });
      status = res.statusCode;
      json = await res.body.json().catch(() => undefined);
    }
  } catch (err) {
    status = `net:${err.cause?.code ?? err.code ?? err.name}`;
  }
  const route = path.replace(/[0-9a-f-]{36}/g, ':id').replace(/\?.*/, '');
  // the first error answer of each kind, printed with the report
  if (
    typeof status === 'number' &&
    status >= 400 &&
    status !== 401 &&
    !errorSamples.has(`${method} ${route} ${status}`)
  )
    errorSamples.set(`${method} ${route} ${status}`, json?.error ?? json);
  records.push({
    phase,
    method,
    path: route,
    status,
    ms: performance.now() - started,
    end: Date.now(),
    idempotent: IDEMPOTENT.has(method),
    code: json?.error?.code,
  });
  if (failed(status))
    failedRequests.push({
      phase,
      'at (s)': (Date.now() - phaseStarted) / 1000,
      method,
      path: route,
      status,
      requestId,
    });
  if (status === 401 && user.token) user.token = undefined; // signs in again
  return { status, json };
}

const subjectOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;

/** Signs up (or in), and registers the user's webhook endpoint once. */
async function signIn(user, receiverUrl) {
  if (!user.registered) {
    const reg = await call(user, 'POST', '/api/v1/auth/register', {
      ...user.creds,
      username: user.name.slice(0, 20),
    });
    if (reg.status === 201) {
      user.registered = true;
      user.token = reg.json?.data?.accessToken;
    } else if (reg.status === 409 || reg.status === 429) user.registered = true; // 429: its e-mails are spent
  }
  if (user.registered && !user.token) {
    const login = await call(user, 'POST', '/api/v1/auth/login', user.creds);
    if (login.status === 200) user.token = login.json?.data?.accessToken;
    // a registration answered 504 or 429 may not have made the account
    else if (login.status === 401) user.registered = false;
  }
  if (!user.token) return false;
  user.id ??= subjectOf(user.token);
  if (!user.webhookSecret) {
    const hook = await call(user, 'POST', '/api/webhooks', {
      url: `${receiverUrl}/hooks/${user.id}`,
      events: ['subscription.created', 'achievement.unlocked'],
    });
    if (hook.status === 201) user.webhookSecret = hook.json?.data?.secret;
    if (!user.webhookSecret) return false;
  }
  return true;
}

async function virtualUser(base, receiverUrl, control) {
  const name = `chaos${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
  const user = {
    base,
    name,
    agent: new Agent({ localAddress: `127.${byte()}.${byte()}.${byte()}` }),
    creds: { email: `${name}@example.com`, password: 'Secret123' },
    cards: [],
    imported: [], // words of imports answered 200
    transactionId: `chaos-${name}`,
    purchased: false,
  };
  users.push(user);
  while (control.running) {
    if (!user.token || !user.webhookSecret) {
      if (!(await signIn(user, receiverUrl))) await sleep(300);
      continue;
    }
    const roll = Math.random();
    if (steady.on && roll < 0.3 && user.cards.length >= SOAK_CARDS_PER_USER) {
      // the soak holds the data steady: the oldest card goes as a new one would come
      const card = user.cards.shift();
      const gone = await call(user, 'DELETE', `/api/flashcards/${card.id}`);
      card.archived = gone.status === 200 ? true : 'unknown';
    } else if (roll < 0.3 || user.cards.length === 0) {
      const word = `w${Math.random().toString(36).slice(2, 10)}`;
      const made = await call(user, 'POST', '/api/flashcards', {
        word,
        translation: 't',
        definition: 'd',
        example: `A ${word}.`,
      });
      const id = made.json?.data?.id ?? made.json?.data?.flashcard?.id;
      if (made.status === 200 && made.json?.success && id) {
        const card = { user, id, word, reviews: 0 };
        user.cards.push(card);
        cards.push(card);
      }
    } else if (roll < 0.55) {
      const card = user.cards[Math.floor(Math.random() * user.cards.length)];
      const review = await call(user, 'POST', `/api/flashcards/${card.id}/review`, { confidence: 2 });
      if (review.status === 200) card.reviews++;
    } else if (roll < 0.65) {
      await call(user, 'GET', '/api/flashcards/due');
    } else if (roll < 0.72) {
      const card = user.cards[Math.floor(Math.random() * user.cards.length)];
      await call(user, 'GET', `/api/flashcards/${card.id}`);
    } else if (roll < 0.77) {
      await call(user, 'GET', '/api/notifications');
    } else if (roll < 0.81) {
      await call(user, 'GET', '/api/achievements');
    } else if (roll < 0.84 && user.imported.length < 9) {
      const words = [1, 2, 3].map(() => `i${Math.random().toString(36).slice(2, 10)}`);
      const form = new FormData();
      form.append('duplicateStrategy', 'skip');
      form.append(
        'file',
        new Blob([['word,translation', ...words.map((w) => `${w},imported`)].join('\n')]),
        'deck.csv',
      );
      const imported = await call(user, 'POST', '/api/import/cards', undefined, { form });
      if (imported.status === 200 && imported.json?.data?.imported === words.length)
        user.imported.push(...words);
    } else if (roll < 0.88) {
      if (!user.purchased) {
        // a client retries its receipt until the server has it: the same transaction is one subscription
        const bought = await call(user, 'POST', '/api/v1/subscriptions/verify-receipt', {
          platform: 'ios',
          receipt_data: `sandbox_valid_${user.transactionId}`,
          transaction_id: user.transactionId,
          product_id: 'com.lingua.premium.monthly',
        });
        if (bought.status === 200 || bought.status === 201) user.purchased = true;
      } else await call(user, 'GET', '/api/v1/subscriptions/status');
    } else {
      const card = user.cards[Math.floor(Math.random() * user.cards.length)];
      await call(user, 'GET', `/api/flashcards/${card.id}`);
    }
  }
}

/** The partner's endpoint: verifies each delivery's Standard Webhooks signature, and records it. */
function startReceiver() {
  const deliveries = new Map(); // userId -> [{ webhookId, event, data }]
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const userId = /^\/hooks\/([^/?]+)/.exec(req.url ?? '')?.[1];
      const user = users.find((u) => u.id === userId);
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (!user?.webhookSecret) throw new Error('unknown endpoint');
        const payload = new Webhook(user.webhookSecret).verify(body, req.headers);
        const list = deliveries.get(userId) ?? [];
        list.push({ webhookId: req.headers['webhook-id'], event: payload.event, data: payload.data });
        deliveries.set(userId, list);
        res.writeHead(204).end();
      } catch {
        badSignatures++;
        res.writeHead(400).end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        deliveries,
        badSignatures: () => badSignatures,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/** Resident memory of every process of the cluster (kB), from procfs. */
function rssOf(processes) {
  const out = {};
  for (const [label, p] of processes) {
    try {
      const status = fs.readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
      out[label] = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      /* not running */
    }
  }
  return out;
}

async function waitUntil(check, timeoutMs, everyMs = 500) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return check();
}

/** A caller outside the virtual users' workload (its own loopback address): a store, or a user of a phase. */
function client(base, prefix) {
  const name = `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
  return {
    base,
    name,
    agent: new Agent({ localAddress: `127.${byte()}.${byte()}.${byte()}` }),
    creds: { email: `${name}@example.com`, password: 'Secret123' },
  };
}
const ok = (status) => typeof status === 'number' && status >= 200 && status < 300;

/** Signs a phase's user up, retrying while the system fails; false if it could not. */
async function register(user) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const reg = await call(user, 'POST', '/api/v1/auth/register', {
      ...user.creds,
      username: user.name.slice(0, 20),
    });
    if (reg.status === 201) {
      user.token = reg.json?.data?.accessToken;
      user.id = subjectOf(user.token);
      return true;
    }
    // an earlier attempt made the account though its answer was lost (409; 429 once its e-mails are spent)
    if ((reg.status === 409 || reg.status === 429) && (await roleOf(user)).status === 200) {
      user.id = subjectOf(user.token);
      return true;
    }
    await sleep(500);
  }
  return false;
}

/** Signs in; the role identity gives, or the status when it refuses (401: no such account). */
async function roleOf(user) {
  const login = await call(user, 'POST', '/api/v1/auth/login', user.creds);
  if (login.status !== 200) return { status: login.status };
  user.token = login.json?.data?.accessToken;
  return { status: 200, role: login.json?.data?.userRole };
}

/**
 * The Play Developer API as a subscriptions replica reaches it: a proxy in front of the stand-in
 * that can hold the first purchase read of a token (a slow Play API) and tells which client port
 * made it, so the phase can kill the replica that holds the claim.
 */
async function startPlayProxy(target) {
  const waiting = new Map(); // token -> resolve({ remotePort })
  const server = http.createServer((req, res) => {
    const forward = () => {
      const upstream = http.request(
        new URL(req.url, target),
        { method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode, r.headers);
          r.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    const token = /\/subscriptionsv2\/tokens\/([^/?]+)/.exec(req.url ?? '')?.[1];
    const held = req.method === 'GET' && token && waiting.get(decodeURIComponent(token));
    if (!held) return forward();
    waiting.delete(decodeURIComponent(token));
    held({ remotePort: req.socket.remotePort });
    // the replica is killed meanwhile (its socket closes); if not, it gets its answer before its
    // STORE_TIMEOUT_MS (5 s) runs out, and the notification is applied normally
    const timer = setTimeout(forward, 4_000);
    req.socket.once('close', () => clearTimeout(timer));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    port: server.address().port,
    /** Resolves with the caller's port when the first GET of `token` arrives (undefined after timeoutMs). */
    hold(token, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => (waiting.delete(token), resolve(undefined)), timeoutMs);
        waiting.set(token, (x) => (clearTimeout(timer), resolve(x)));
      });
    },
    close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

/** The cluster process (among `labels`) owning the loopback TCP connection from `port` to `toPort`. */
function processOfConnection(processes, labels, port, toPort) {
  const hex = (n) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`;
  const readTable = (file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return ''; // no IPv6 table
    }
  };
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readTable(table).split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(hex(port)) && f[2]?.endsWith(hex(toPort))) inodes.add(f[9]);
    }
  }
  for (const label of labels) {
    const pid = processes.get(label)?.child?.pid;
    if (!pid || !fs.existsSync(`/proc/${pid}/fd`)) continue;
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) return label;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

/**
 * Store notifications: users who bought through Google Play (the stand-in), whose purchases the
 * store then revokes; each revocation's first attempt is held in the Play API read that follows the
 * claim, and the subscriptions replica holding it is killed there. The store retries as Pub/Sub
 * does (any non-2xx, or no answer: again later, with back-off) until it gets a 2xx.
 */
function storeNotifications({ base, play, proxy }) {
  const buyers = [];
  const notes = []; // { user, token, answers, killed, outcome }
  const store = client(base, 'playstore');
  async function buy() {
    for (let i = 0; i < STORE_NOTIFICATIONS; i++) {
      const user = client(base, 'chaosplay');
      if (!(await register(user))) continue;
      const token = `chaos-play-${randomUUID()}`;
      const now = Date.now();
      play.purchases.set(token, {
        productId: PLAY_SKU,
        subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
        latestOrderId: `GPA.${token}`,
        startTime: new Date(now).toISOString(),
        expiryTime: new Date(now + 30 * 86_400_000).toISOString(),
        autoRenew: true,
        acknowledged: false,
      });
      const bought = await call(user, 'POST', '/api/v1/subscriptions/verify-receipt', {
        platform: 'android',
        receipt_data: token,
        transaction_id: token,
        product_id: PLAY_SKU,
      });
      if (bought.status === 200 || bought.status === 201) buyers.push({ user, token });
    }
  }
  /** The store's delivery of one notification: retried until a 2xx, for up to STORE_RETRY_MS. */
  async function deliver(note) {
    const body = {
      message: {
        data: Buffer.from(
          JSON.stringify({
            version: '1.0',
            packageName: PLAY_PACKAGE,
            eventTimeMillis: String(Date.now()),
            subscriptionNotification: {
              version: '1.0',
              notificationType: 12,
              purchaseToken: note.token,
              subscriptionId: PLAY_SKU,
            },
          }),
        ).toString('base64'),
        messageId: note.messageId,
        publishTime: new Date().toISOString(),
      },
      subscription: 'projects/lingua/subscriptions/play-rtdn',
    };
    const deadline = Date.now() + STORE_RETRY_MS;
    let delay = 1000;
    for (;;) {
      store.token = await play.pushToken({ aud: PUSH_AUDIENCE, email: PUSH_EMAIL });
      const got = await call(store, 'POST', '/api/v1/subscriptions/notifications/google', body);
      note.answers.push(ok(got.status) ? `${got.status} ${got.json?.data?.outcome}` : String(got.status));
      if (ok(got.status)) {
        note.settledAt = Date.now();
        return (note.outcome = got.json?.data?.outcome);
      }
      if (Date.now() > deadline) return undefined;
      await sleep(delay);
      delay = Math.min(delay * 2, 10_000);
    }
  }
  /** The phase: one notification at a time, its replica killed between the claim and the apply. */
  async function killBetweenClaimAndApply(cluster) {
    const replicas = [...cluster.processes.keys()].filter((l) => /^subscriptions-\d$/.test(l));
    for (const { user, token } of buyers) {
      // what Google says now: revoked (refunded), no access
      play.purchases.set(token, {
        ...play.purchases.get(token),
        subscriptionState: 'SUBSCRIPTION_STATE_EXPIRED',
        expiryTime: new Date(Date.now() - 1000).toISOString(),
        autoRenew: false,
      });
      const note = { user, token, messageId: randomUUID(), answers: [] };
      notes.push(note);
      const reached = proxy.hold(token, 15_000);
      note.delivered = deliver(note);
      const held = await reached;
      // claimed (the claim is written before the store is asked), not applied: killed here
      note.killed = held && processOfConnection(cluster.processes, replicas, held.remotePort, proxy.port);
      if (note.killed) {
        note.killedAt = Date.now();
        await cluster.restart(note.killed, 'SIGKILL');
      }
    }
    // the phase lasts until the store has its 2xx: a claim taken over (or not) on a healthy system
    await Promise.all(notes.map((n) => n.delivered));
  }
  /** After the chaos: every notification delivered, and applied as the store says. */
  async function reconcile() {
    await Promise.all(notes.map((n) => n.delivered));
    let unapplied = 0;
    for (const note of notes) {
      // identity's role follows the subscription.updated event (a sign-in every 5 s: within its
      // budget; it also gives the fresh token the access check needs after a long run)
      const demoted = await waitUntil(async () => (await roleOf(note.user)).role === 'user', 60_000, 5000);
      const access = await read(note.user, '/api/v1/subscriptions/check-access/unlimited_dialogue');
      note.applied = access.json?.data?.has_access === false && demoted;
      if (!note.applied) unapplied++;
    }
    return {
      sent: notes.length,
      killed: notes.filter((n) => n.killed).map((n) => n.killed),
      answers: notes.map((n) => n.answers.join(', ')),
      // seconds from the kill to the store's 2xx
      settled: notes
        .filter((n) => n.killedAt && n.settledAt)
        .map((n) => Math.round((n.settledAt - n.killedAt) / 1000)),
      unapplied,
    };
  }
  return { buy, killBetweenClaimAndApply, reconcile, buyers, close: () => store.agent.close() };
}

/** The bus as the operator sees it: each consumer's backlog, and the dead-letter stream. */
async function busInspector(adminUrl) {
  const urls = adminUrl.split(',').map((u) => new URL(u));
  const nc = await natsConnect({
    servers: urls.map((u) => `${u.protocol}//${u.host}`),
    user: decodeURIComponent(urls[0].username),
    pass: decodeURIComponent(urls[0].password),
  });
  const jsm = await jetstreamManager(nc);
  const deadLetterStream = `${BUS.stream}_DLQ`;
  const lastSeq = async (stream) =>
    (await jsm.streams.info(stream).catch(() => undefined))?.state.last_seq ?? 0;
  const startedAt = await lastSeq(deadLetterStream);
  return {
    nc,
    /** Events a consumer has not acknowledged yet (pending + delivered, not acked), per consumer. */
    async backlog() {
      const out = {};
      for (const c of await jsm.consumers.list(BUS.stream).next())
        if (c.num_pending + c.num_ack_pending > 0) out[c.name] = c.num_pending + c.num_ack_pending;
      return out;
    },
    /** What was dead-lettered since the run began: { consumer, subject, reason } each. */
    async deadLettered() {
      const out = [];
      for (let seq = startedAt + 1; seq <= (await lastSeq(deadLetterStream)); seq++) {
        const m = await jsm.streams.getMessage(deadLetterStream, { seq }).catch(() => undefined);
        if (!m) continue;
        out.push({
          consumer: m.subject.split('.').slice(1).join('.'),
          subject: m.header?.get('x-original-subject'),
          reason: m.header?.get('x-dead-letter-reason')?.slice(0, 120),
        });
      }
      return out;
    },
    close: () => nc.close(),
  };
}

/**
 * The database outage: accounts deleted and subscriptions bought all at once; the moment the first
 * of their events is on the bus the database server is killed (its consumers are then handling
 * them, or about to) and held down DB_DOWN_MS, while the workload goes on (its requests fail
 * meanwhile: counted, not lost). The users retry what failed until the system takes it.
 */
function databaseOutage({ base, bus, cluster }) {
  const leavers = [];
  const buyers = [];
  const stats = { waiting: {} };
  async function prepare() {
    for (let i = 0; i < OUTAGE_USERS; i++) {
      const leaver = client(base, 'chaosleave');
      if (await register(leaver)) {
        // something of theirs in flashcards and subscriptions for the erasure to remove
        for (const word of ['one', 'two'])
          await call(leaver, 'POST', '/api/flashcards', {
            word: `${word}${leaver.name}`,
            translation: 't',
            definition: 'd',
            example: `A ${word}.`,
          });
        await call(leaver, 'POST', '/api/v1/subscriptions/verify-receipt', {
          platform: 'ios',
          receipt_data: `sandbox_valid_${leaver.name}`,
          transaction_id: leaver.name,
          product_id: 'com.lingua.premium.monthly',
        });
        leavers.push(leaver);
      }
      const buyer = client(base, 'chaosbuy');
      if (await register(buyer)) buyers.push(buyer);
    }
  }
  const deadline = () => Date.now() + DB_DOWN_MS + 180_000;
  async function leave(user) {
    const until = deadline();
    while (Date.now() < until) {
      if (!user.token && (await roleOf(user)).status === 401) return (user.left = true); // gone
      const gone = await call(user, 'DELETE', '/api/users/account', { password: user.creds.password });
      if (gone.status === 200) return (user.left = true);
      await sleep(2000);
    }
    return false;
  }
  async function buy(user) {
    const until = deadline();
    while (Date.now() < until) {
      if (!user.token) await roleOf(user);
      const bought = await call(user, 'POST', '/api/v1/subscriptions/verify-receipt', {
        platform: 'ios',
        receipt_data: `sandbox_valid_${user.name}`,
        transaction_id: user.name,
        product_id: 'com.lingua.premium.monthly',
      });
      if (bought.status === 200 || bought.status === 201) return (user.bought = true);
      await sleep(2000);
    }
    return false;
  }
  async function run() {
    const ids = new Set([...leavers, ...buyers].map((u) => u.id));
    let onBus;
    const firstEvent = new Promise((resolve) => (onBus = resolve));
    const subs = ['user.deleted', 'subscription.created'].map((event) =>
      bus.nc.subscribe(`${BUS.prefix}.${event}`, {
        callback: (err, msg) => {
          if (err) return;
          try {
            if (ids.has(msg.json().data?.userId)) onBus(true);
          } catch {
            /* not an event */
          }
        },
      }),
    );
    const done = [...leavers.map(leave), ...buyers.map(buy)];
    stats.caughtOnBus = await Promise.race([firstEvent, sleep(30_000).then(() => false)]);
    for (const sub of subs) sub.unsubscribe();
    const outage = cluster.restart('ferretdb', 'SIGKILL', { downMs: DB_DOWN_MS });
    // what the consumers hold that needs the database: measured once the kill has landed
    await sleep(2000);
    stats.waiting = await bus.backlog();
    await outage;
    await Promise.all(done);
  }
  /** Whether the flashcards and subscriptions databases still hold anything of the user. */
  async function remnants(mongo, userId) {
    const found = {};
    for (const service of ['flashcards', 'subscriptions']) {
      const db = mongo.db(PORT_BASE !== undefined ? `chaos${PORT_BASE}_${service}` : `lingua_${service}`);
      for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
        const n = await db.collection(name).countDocuments({ userId }, { limit: 1 });
        if (n) found[`${service}.${name}`] = n;
      }
    }
    return found;
  }
  /** After the chaos: every event handled, none dead-lettered, each deletion and purchase applied. */
  async function reconcile() {
    await waitUntil(async () => Object.keys(await bus.backlog()).length === 0, CONSUMERS_DEADLINE_MS);
    const backlog = await bus.backlog();
    const deadLettered = await bus.deadLettered();
    const mongo = await MongoClient.connect(ADMIN_MONGO_URL, { serverSelectionTimeoutMS: 10_000 });
    let notErased = 0;
    const left = [];
    try {
      for (const user of leavers.filter((u) => u.left)) {
        let found = {};
        await waitUntil(
          async () => Object.keys((found = await remnants(mongo, user.id))).length === 0,
          30_000,
        );
        if (Object.keys(found).length) {
          notErased++;
          left.push(found);
        }
      }
    } finally {
      await mongo.close();
    }
    let rolesNotApplied = 0;
    for (const user of buyers.filter((u) => u.bought))
      if (!(await waitUntil(async () => (await roleOf(user)).role === 'subscriber', 60_000, 5000)))
        rolesNotApplied++;
    return {
      caughtOnBus: stats.caughtOnBus,
      waiting: stats.waiting,
      unhandled: Object.values(backlog).reduce((a, b) => a + b, 0),
      backlog,
      deadLettered,
      deleted: leavers.filter((u) => u.left).length,
      deletesUnanswered: leavers.filter((u) => !u.left).length,
      notErased,
      remnants: left,
      bought: buyers.filter((u) => u.bought).length,
      buysUnanswered: buyers.filter((u) => !u.bought).length,
      rolesNotApplied,
    };
  }
  const close = async () => {
    for (const u of [...leavers, ...buyers]) await u.agent.close();
  };
  return { prepare, run, reconcile, close };
}

/**
 * The study-reminder minute (issue 37 item 4): users in zones with 30- and 45-minute offsets set
 * their reminder for the same coming minute; as it strikes, the SIGKILL phase kills a replica of
 * every service, among them a flashcards replica (the schedulers both run) and a notifications
 * replica (saying the reminders). Afterwards each user has exactly one push at the sink and one
 * study_reminder in the app.
 */
function studyReminderMinute({ base, sink }) {
  const zones = [
    'Asia/Kathmandu',
    'America/St_Johns',
    'Asia/Kolkata',
    'Australia/Adelaide',
    'Pacific/Chatham',
    'Europe/Berlin',
  ];
  const learners = [];
  /** The minute armed: every user's reminder falls in it. */
  let minute;
  async function prepare() {
    for (let i = 0; i < REMINDER_USERS; i++) {
      const user = client(base, 'chaosremind');
      if (!(await register(user))) continue;
      user.zone = zones[i % zones.length];
      user.device = randomBytes(32).toString('hex');
      const retried = async (method, path, body) => {
        for (let t = 0; t < 20; t++) {
          const r = await call(user, method, path, body);
          if (ok(r.status)) return true;
          if (r.status === 401) await roleOf(user);
          await sleep(500);
        }
        return false;
      };
      if (
        (await retried('PUT', '/api/users/profile', { timezone: user.zone })) &&
        (await retried('POST', '/api/users/devices', {
          platform: 'ios',
          token: user.device,
          appVersion: '1.0.0',
        }))
      )
        learners.push(user);
    }
  }
  /**
   * Sets every user's reminder for the first minute boundary at least REMINDER_LEAD_MS away, each
   * write retried until 2 s before it. When one has not landed by then, all are set again for the
   * next minute (three at most): one already reminded on the earlier minute is not reminded again
   * the same local day (ADR 0028), so a move cannot double a reminder.
   */
  async function arm() {
    for (let attempt = 1; ; attempt++) {
      const next = Math.ceil((Date.now() + REMINDER_LEAD_MS) / 60_000) * 60_000;
      const settled = next - 2000;
      await inParallel(learners, async (user) => {
        user.set = false;
        while (Date.now() < settled) {
          const r = await call(user, 'PUT', '/api/users/settings', {
            reminderEnabled: true,
            reminderTime: localTime(new Date(next), user.zone),
            pushNotifications: true,
          });
          if (ok(r.status)) return (user.set = true);
          if (r.status === 401) await roleOf(user);
          await sleep(500);
        }
      });
      // a third minute missed: the verdict counts the users set up
      if (learners.every((u) => u.set) || attempt === 3) {
        minute = next;
        return;
      }
      progress(`reminder minute ${new Date(next).toISOString()} missed by a setting: the next one`);
    }
  }
  /** Waits for the armed minute: the phase after this one strikes as it comes. */
  async function untilMinute() {
    await sleep(Math.max(0, minute - Date.now()));
  }
  async function reconcile() {
    const set = learners.filter((u) => u.set);
    const pushesTo = (u) =>
      sink.pushes.filter((p) => p.token === u.device && p.collapseKey === 'study_reminder');
    // a reminder whose sender was killed mid-way goes out once its claim's lease is out
    await waitUntil(async () => set.every((u) => pushesTo(u).length > 0), REMINDER_DEADLINE_MS, 1000);
    // and nothing more comes: a later positive signal, every in-app list read after the wait
    let inAppNotOne = 0;
    for (const u of set) {
      const r = await read(u, '/api/notifications?type=study_reminder');
      const n = r.json?.data?.notifications?.length;
      if (n !== 1) inAppNotOne++;
    }
    return {
      at: new Date(minute).toISOString(),
      users: set.length,
      prepared: learners.length,
      once: set.filter((u) => pushesTo(u).length === 1).length,
      duplicated: set.filter((u) => pushesTo(u).length > 1).length,
      missed: set.filter((u) => pushesTo(u).length === 0).length,
      inAppNotOne,
    };
  }
  const close = async () => {
    for (const u of learners) await u.agent.close();
  };
  return { prepare, arm, untilMinute, reconcile, close };
}

/**
 * The Redis primary SIGKILLed under load and not restarted (issue 40): the Sentinels promote a
 * replica and every process follows through node-redis' Sentinel client. Around the kill, users log
 * out (a logout answers only once a replica holds the revocation: Redis WAIT); afterwards none of
 * their tokens may pass. An account locked and an address rate-limited just before the kill must
 * still be so after it. A probe measures how long authenticated requests fail (or hang past 1 s).
 */
function redisPrimaryKill({ base, cluster }) {
  const leavers = [];
  let probeUser;
  let lockUser;
  const stats = {};
  async function prepare() {
    probeUser = client(base, 'chaosprobe');
    lockUser = client(base, 'chaoslock');
    await register(probeUser);
    await register(lockUser);
    for (let i = 0; i < REDIS_LOGOUT_USERS; i++) {
      const user = client(base, 'chaosleave');
      if (await register(user)) leavers.push(user);
    }
  }
  /** Authenticated GETs every 100 ms, each timed: [{ start, end, ok }] (ms since the epoch). */
  function probe(control) {
    const samples = [];
    const done = (async () => {
      while (control.running) {
        const start = Date.now();
        const r = await call(probeUser, 'GET', '/api/notifications');
        samples.push({ start, end: Date.now(), ok: ok(r.status) });
        if (r.status === 401) await roleOf(probeUser);
        await sleep(100);
      }
    })();
    return { samples, done };
  }
  const wrongLogin = (user) =>
    call(user, 'POST', '/api/v1/auth/login', { ...user.creds, password: 'Wrong123' });
  async function run() {
    // a healthy start: the probe's user answers (the phase before may have disturbed things)
    await waitUntil(
      async () => {
        if (!probeUser.token) await roleOf(probeUser);
        return ok((await call(probeUser, 'GET', '/api/notifications')).status);
      },
      60_000,
      300,
    );
    // the login limit counts per address in fixed minutes: lock and limit early in one, so the
    // check after the failover falls in the same minute
    if (Date.now() % 60_000 > 40_000) await sleep(60_000 - (Date.now() % 60_000) + 200);
    const lockedFrom = Date.now();
    for (let i = 0; i < 5; i++) await wrongLogin(lockUser);
    stats.limitedBefore = (await call(lockUser, 'POST', '/api/v1/auth/login', lockUser.creds)).status;
    const other = client(base, 'chaoslockcheck');
    other.creds = lockUser.creds;
    stats.lockedBefore = (await call(other, 'POST', '/api/v1/auth/login', other.creds)).status;

    const control = { running: true };
    const p = probe(control);
    await sleep(1000);
    stats.primary = await cluster.redisPrimary();
    const killedAt = Date.now();
    // users log out from half a second before the kill to 4 s after it, retrying as an app does
    const logouts = inParallel(leavers, async (user) => {
      const i = leavers.indexOf(user);
      await sleep(Math.max(0, killedAt - 500 + (i * 4500) / leavers.length - Date.now()));
      user.leftToken = user.token;
      for (let t = 0; t < 60; t++) {
        const r = await call(user, 'POST', '/api/v1/auth/logout');
        // 401 on a retry: an earlier attempt revoked the token though its answer was lost
        if (ok(r.status) || (t > 0 && r.status === 401)) {
          user.loggedOutAt = Date.now();
          return;
        }
        user.token = user.leftToken; // call() forgets a token on 401
        await sleep(250);
      }
    });
    await cluster.processes.get(stats.primary).stop('SIGKILL');
    // until the probe has seen 3 s of answers in a row after the kill
    await waitUntil(
      () => {
        const after = p.samples.filter((x) => x.start >= killedAt);
        const bad = after.filter((x) => !x.ok);
        const lastBad = bad.length ? bad[bad.length - 1].end : killedAt;
        return after.length > 0 && Date.now() - lastBad > 3000 && after[after.length - 1].ok;
      },
      30_000,
      200,
    );
    await logouts;
    control.running = false;
    await p.done;
    stats.newPrimary = await cluster.redisPrimary();
    // failing: of every request of the phase that ended after the kill (the probe's and the
    // virtual users'), those that failed were sent within this window; a request sent after it
    // succeeded. A request sent during the failover waits for the new primary, so its failure
    // (a deadline) is answered later: lastFailureMs says when the last one was.
    const after = records.filter((x) => x.phase === phase && x.end >= killedAt);
    const bad = after.filter((x) => failed(x.status));
    const sent = bad.map((x) => Math.max(killedAt, x.end - x.ms));
    stats.outageMs = bad.length ? Math.max(...sent) - Math.min(...sent) : 0;
    stats.lastFailureMs = bad.length ? Math.max(...bad.map((x) => x.end)) - killedAt : 0;
    stats.failedRequests = bad.length;
    // what each failure was, by when it was sent (ms after the kill): which part gave up, and when
    stats.failures = bad.map((x) => ({
      sentMs: Math.round(Math.max(killedAt, x.end - x.ms) - killedAt),
      ms: Math.round(x.ms),
      request: `${x.method} ${x.path}`,
      status: x.status,
      code: x.code,
    }));
    stats.requests = after.length;
    stats.probes = p.samples.filter((x) => x.end >= killedAt).length;
    stats.slowestMs = Math.max(0, ...after.map((x) => x.ms));
    // a dependency outage is 503 (try again), never a 500 that reads as our bug
    stats.internalErrors = after.filter((x) => x.status === 500).length;

    // after the failover: no logged-out token passes, the lock and the address limit still hold
    const out = leavers.filter((u) => u.loggedOutAt);
    stats.loggedOut = out.length;
    stats.loggedOutDuring = out.filter((u) => u.loggedOutAt >= killedAt).length;
    // accepted: any answer but 401 that is not a failure (a 5xx or no answer says nothing of the
    // token: asked again for up to 10 s, then counted apart as undecided)
    stats.accepted = 0;
    stats.undecided = 0;
    stats.acceptedTokens = [];
    for (const u of out) {
      let r;
      const until = Date.now() + 10_000;
      do {
        u.token = u.leftToken;
        r = await call(u, 'GET', '/api/notifications');
      } while (failed(r.status) && Date.now() < until && (await sleep(250), true));
      if (failed(r.status)) stats.undecided++;
      else if (r.status !== 401) {
        stats.accepted++;
        stats.acceptedTokens.push({ loggedOutMs: u.loggedOutAt - killedAt, status: r.status });
      }
    }
    stats.lockedAfter = (await call(other, 'POST', '/api/v1/auth/login', other.creds)).status;
    stats.sameMinute = Math.floor(lockedFrom / 60_000) === Math.floor(Date.now() / 60_000);
    stats.limitedAfter = (await call(lockUser, 'POST', '/api/v1/auth/login', lockUser.creds)).status;
    await other.agent.close();
  }
  const result = () => stats;
  const close = async () => {
    for (const u of [probeUser, lockUser, ...leavers]) await u?.agent.close();
  };
  return { prepare, run, result, close };
}

async function main() {
  const receiver = await startReceiver();
  // the development push sink: notifications without provider credentials pushes here
  const sink = await startPushSink({ port: 0 });
  // Google Play (the subscriptions tests' stand-in) behind a proxy that can hold a purchase read
  const play = await startPlayStandIn(PLAY_PACKAGE);
  const proxy = await startPlayProxy(play.url);
  const cluster = await startCluster({
    quiet: true,
    ...(PORT_BASE !== undefined && { portBase: PORT_BASE, dbPrefix: `chaos${PORT_BASE}_` }),
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      EVENTS_SUBJECT_PREFIX: BUS.prefix,
      EVENTS_STREAM: BUS.stream,
      // Android purchases and their real-time notifications go to the Play stand-in
      SUBSCRIPTIONS_ANDROID_VERIFIER: 'google',
      GOOGLE_PLAY_API_URL: proxy.url,
      GOOGLE_PLAY_PACKAGE_NAME: PLAY_PACKAGE,
      GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
      GOOGLE_RTDN_AUDIENCE: PUSH_AUDIENCE,
      GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL: PUSH_EMAIL,
      GOOGLE_RTDN_CERTS_URL: play.certsUrl,
      PUSH_SINK_URL: `http://127.0.0.1:${sink.port}/push`,
      // a reminder claim's lease (push time x attempts + Retry-After waits + 30 s) of about a minute
      PUSH_TIMEOUT_MS: '5000',
      PUSH_MAX_ATTEMPTS: '3',
      PUSH_MAX_RETRY_WAIT_MS: '5000',
      FLASHCARDS_REMINDER_POLL_MS: '1000',
      ...(RETRY_BACKOFF && { EVENTS_RETRY_BACKOFF_MS: RETRY_BACKOFF }),
      ...(STORE_LEASE_MS && { STORE_NOTIFICATION_LEASE_MS: STORE_LEASE_MS }),
    },
    ...(process.env.CHAOS_LOG_DIR && { logDir: process.env.CHAOS_LOG_DIR }),
  }).catch(async (err) => {
    await proxy.close();
    await play.close();
    throw err;
  });
  const { services, restart } = cluster;
  progress('cluster ready');
  const closeStores = async () => {
    await proxy.close().catch(() => undefined);
    await play.close().catch(() => undefined);
    await sink.close().catch(() => undefined);
  };
  // interrupted (Ctrl-C, a timeout): the cluster stops with it, nothing is left running
  const interrupted = async (signal) => {
    await cluster.stop({ dropData: PORT_BASE !== undefined }).catch(() => undefined);
    await closeStores();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let bus;
  try {
    bus = await busInspector(cluster.natsAdminUrl);
  } catch (err) {
    await cluster.stop({ dropData: PORT_BASE !== undefined });
    await closeStores();
    throw err;
  }
  const store = storeNotifications({ base: cluster.url, play, proxy });
  const outage = databaseOutage({ base: cluster.url, bus, cluster });
  const reminders = studyReminderMinute({ base: cluster.url, sink });
  const redisKill = redisPrimaryKill({ base: cluster.url, cluster });
  const replicas = SHORT ? [1] : [1, 2];
  /** Restarts `label(name)` of each service (and the gateway, with it): see SERVICES_AT_ONCE. */
  const restartEach = async (names, label, signal) => {
    const waves = SERVICES_AT_ONCE
      ? [names.filter((n) => n !== 'ai'), names.filter((n) => n === 'ai')]
      : names.map((n) => [n]);
    for (const wave of waves) {
      await Promise.all(wave.map((name) => restart(label(name), signal)));
      progress(`${signal}: ${wave.map(label).join(', ')} back in rotation`);
    }
  };
  const serviceNames = services.map(([name]) => name);
  const phases = [
    [
      'warm-up',
      async () => {
        // the phases' own users: Play buyers, and accounts to delete and buy in the outage
        await Promise.all([store.buy(), outage.prepare(), reminders.prepare(), redisKill.prepare()]);
      },
    ],
    [
      'rolling restart (SIGTERM, one replica at a time)',
      async () => {
        for (const i of replicas)
          await restartEach([...serviceNames, 'gateway'], (name) => `${name}-${i}`, 'SIGTERM');
      },
    ],
    [
      // the reminder minute is set, then waited for, meanwhile: the phase after this one strikes as it comes
      'store notification: subscriptions replica SIGKILLed between claim and apply',
      async () => {
        await Promise.all([store.killBetweenClaimAndApply(cluster), reminders.arm()]);
        await reminders.untilMinute();
      },
    ],
    [
      'SIGKILL one replica of each service, as the study-reminder minute strikes',
      async () => {
        for (let round = 0; round < KILL_ROUNDS; round++)
          await restartEach(serviceNames, (name) => `${name}-2`, 'SIGKILL');
      },
    ],
    [
      'restart one NATS node',
      async () => restart(`nats-${cluster.natsNodes[1].name}`, 'SIGTERM', { downMs: 2000 }),
    ],
    ['Redis primary SIGKILLed (Sentinel failover, not restarted)', async () => redisKill.run()],
    // the node killed above comes back (as a replica of the new primary) with this restart
    ['restart Redis', async () => restart('redis', 'SIGTERM', { downMs: 1000 })],
    ...(cluster.hasOwnDatabase
      ? [
          [
            'restart the database server (FerretDB)',
            async () => restart('ferretdb', 'SIGTERM', { downMs: 1000 }),
          ],
        ]
      : []),
    ...(cluster.hasOwnDatabase
      ? [[`database down ${DB_DOWN_MS / 1000} s (FerretDB killed as events are on the bus)`, outage.run]]
      : []),
    ['cool-down', async () => sleep(PHASE_MS / 2)],
  ];
  console.log(
    `chaos: ${USERS} users, ${PHASE_MS / 1000} s phases, database down ${DB_DOWN_MS / 1000} s (CHAOS_DB_DOWN_MS=${DB_DOWN_MS})`,
  );
  let rss;
  if (SOAK_MS > 0)
    phases.push([
      `soak (warm-up, then ${SOAK_MS / 1000} s)`,
      async () => {
        // warm-up: the data reaches its steady size and every process its working set (the SIGKILL
        // phase restarted some minutes ago); then SOAK_MS of the same load
        steady.on = true;
        await sleep(Math.min(120_000, SOAK_MS / 5));
        // one RSS reading is wherever the garbage collector left the heap: every process is read
        // every RSS_EVERY_MS, and bench/soak-memory.js judges the whole series
        const samples = []; // { at: s since the soak began, rss: { label: kB } }
        const began = Date.now();
        const until = began + SOAK_MS;
        while (true) {
          samples.push({ at: Math.round((Date.now() - began) / 1000), rss: rssOf(cluster.processes) });
          if (Date.now() >= until) break;
          await sleep(Math.min(RSS_EVERY_MS, until - Date.now()));
        }
        rss = soakMemory(samples);
        if (process.env.CHAOS_LOG_DIR)
          fs.writeFileSync(`${process.env.CHAOS_LOG_DIR}/soak-rss.json`, JSON.stringify(samples));
      },
    ]);
  const control = { running: true };
  const running = Array.from({ length: USERS }, () => virtualUser(cluster.url, receiver.url, control));
  const timings = {};
  let reconciled;
  try {
    for (const [name, run] of phases) {
      phase = name;
      progress(`phase: ${name}`);
      const started = Date.now();
      phaseStarted = started;
      await run();
      // each phase lasts at least PHASE_MS of traffic
      const left = PHASE_MS - (Date.now() - started);
      if (left > 0) await sleep(left);
      timings[name] = Date.now() - started;
    }
    control.running = false; // each user's loop ends after its request in flight
    await Promise.all(running);
    phase = 'reconcile';
    progress('reconciling');
    reconciled = await reconcile(receiver);
    progress('reconciled: cards, reviews, webhooks, events');
    reconciled.store = await store.reconcile();
    reconciled.reminders = await reminders.reconcile();
    progress('reconciled: store notifications, reminders');
    reconciled.redis = redisKill.result();
    if (cluster.hasOwnDatabase) reconciled.outage = await outage.reconcile();
    progress('reconciled: database outage');
  } finally {
    control.running = false;
    await bus.close().catch(() => undefined);
    await cluster.stop({ dropData: PORT_BASE !== undefined });
    progress('cluster stopped');
    await receiver.close();
    await closeStores();
    for (const u of users) await u.agent.close();
    await store.close();
    await outage.close();
    await reminders.close();
    await redisKill.close();
  }
  await report(phases, timings, reconciled, rss, receiver);
}

/** Runs `work` over the items, 16 at a time (each user's own connection pool takes its share). */
async function inParallel(items, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** A reconciliation read, retried while the system answers 5xx, for up to a minute. */
async function read(user, path) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const got = await call(user, 'GET', path);
    if (!failed(got.status) || Date.now() > deadline) return got;
    await sleep(1000);
  }
}

async function reconcile(receiver) {
  let lost = 0;
  let reviewsLost = 0;
  let importsLost = 0;
  let subscriptionsLost = 0;
  let archivedBack = 0;
  const unreadable = new Map();
  const note = (status) => unreadable.set(status, (unreadable.get(status) ?? 0) + 1);
  for (const user of users) if (!user.token) await signIn(user);
  await inParallel(cards, async (card) => {
    if (card.archived === 'unknown') return; // its delete got no answer: either state is right
    const got = await read(card.user, `/api/flashcards/${card.id}`);
    const stored = got.json?.data;
    if (failed(got.status)) return note(got.status); // unknown, not lost: reported as unreadable
    if (card.archived) return void (got.status === 404 || archivedBack++); // deleted stays deleted
    if (got.status !== 200 || stored?.word !== card.word) lost++;
    else if ((stored.timesReviewed ?? 0) < card.reviews) reviewsLost++;
  });
  const unlocked = new Map(); // userId -> achievement ids
  for (const user of users) {
    for (const word of user.imported) {
      const found = await read(user, `/api/flashcards?search=${word}`);
      if (failed(found.status)) note(found.status);
      else if (!(found.json?.data?.flashcards ?? []).some((c) => c.word === word)) importsLost++;
    }
    if (user.purchased) {
      const status = await read(user, '/api/v1/subscriptions/status');
      if (failed(status.status)) note(status.status);
      else if (status.json?.data?.subscription_status?.is_active !== true) subscriptionsLost++;
    }
    // the board evaluates too: what it unlocks now is announced as well
    const board = await read(user, '/api/achievements');
    unlocked.set(user.id, new Set((board.json?.data?.unlocked ?? []).map((a) => a.id)));
  }
  // events: each expected one delivered, within the deadline
  const expected = (user) => [
    ...(user.purchased ? ['subscription.created:'] : []),
    ...[...(unlocked.get(user.id) ?? [])].map((id) => `achievement.unlocked:${id}`),
  ];
  const keyOf = (d) =>
    d.event === 'achievement.unlocked' ? `achievement.unlocked:${d.data?.achievementId}` : `${d.event}:`;
  const missing = () =>
    users.flatMap((u) => {
      const got = new Set((receiver.deliveries.get(u.id) ?? []).map(keyOf));
      return expected(u).filter((k) => !got.has(k));
    });
  await waitUntil(() => missing().length === 0, DELIVERY_DEADLINE_MS);
  // a repeat is allowed only as a redelivery (same webhook-id); a second id is a double application
  let doubled = 0;
  let redelivered = 0;
  let unexpected = 0;
  for (const user of users) {
    const ids = new Map();
    for (const d of receiver.deliveries.get(user.id) ?? []) {
      const key = keyOf(d);
      if (!expected(user).includes(key)) unexpected++;
      const seen = ids.get(key) ?? new Set();
      if (seen.has(d.webhookId)) redelivered++;
      seen.add(d.webhookId);
      ids.set(key, seen);
    }
    for (const seen of ids.values()) if (seen.size > 1) doubled += seen.size - 1;
  }
  const delivered = [...receiver.deliveries.values()].reduce((n, l) => n + l.length, 0);
  return {
    lost,
    archivedBack,
    reviewsLost,
    importsLost,
    subscriptionsLost,
    unreadable,
    events: {
      expected: users.reduce((n, u) => n + expected(u).length, 0),
      delivered,
      missing: missing().length,
      doubled,
      redelivered,
      unexpected,
      badSignatures: receiver.badSignatures(),
    },
  };
}

async function report(phases, timings, r, rss) {
  const rows = [];
  for (const [name] of phases) {
    const rs = records.filter((x) => x.phase === name);
    const ms = rs.map((x) => x.ms).sort((a, b) => a - b);
    const bad = rs.filter((x) => failed(x.status));
    rows.push({
      phase: name,
      seconds: Math.round((timings[name] ?? 0) / 1000),
      requests: rs.length,
      'failed (5xx/network)': bad.length,
      'of them non-idempotent': bad.filter((x) => !x.idempotent).length,
      p50: Math.round(percentile(ms, 50)),
      p95: Math.round(percentile(ms, 95)),
      p99: Math.round(percentile(ms, 99)),
    });
  }
  console.table(rows);
  const failedBy = new Map();
  for (const x of records)
    if (failed(x.status)) {
      const key = `${x.phase.split(' ').slice(0, 2).join(' ')} ${x.method} ${x.path} → ${x.status}`;
      failedBy.set(key, (failedBy.get(key) ?? 0) + 1);
    }
  if (failedBy.size) console.log('failures:', Object.fromEntries([...failedBy].sort((a, b) => b[1] - a[1])));
  // each failed request with its X-Request-ID, which every service logs (CHAOS_LOG_DIR keeps the logs)
  if (failedRequests.length) console.table(failedRequests.slice(0, 40));
  if (errorSamples.size) console.log('first error answer of each kind:', Object.fromEntries(errorSamples));
  const acknowledgedReviews = cards.reduce((n, c) => n + c.reviews, 0);
  const imported = users.reduce((n, u) => n + u.imported.length, 0);
  const purchased = users.filter((u) => u.purchased).length;
  console.log(
    [
      `reconciliation: ${cards.length} cards acknowledged, ${r.lost} lost;`,
      `${acknowledgedReviews} reviews acknowledged, ${r.reviewsLost} cards missing acknowledged reviews;`,
      `${imported} imported words acknowledged, ${r.importsLost} lost;`,
      `${purchased} subscriptions acknowledged, ${r.subscriptionsLost} not active;`,
      `${cards.filter((c) => c.archived === true).length} deletes acknowledged, ${r.archivedBack} undone.`,
    ].join(' '),
  );
  const e = r.events;
  console.log(
    `webhooks: ${e.expected} events expected, ${e.delivered} deliveries, ${e.missing} missing, ` +
      `${e.doubled} double-applied (another webhook-id), ${e.redelivered} redelivered (same id), ` +
      `${e.unexpected} unexpected, ${e.badSignatures} failed signature checks`,
  );
  const st = r.store;
  console.log(
    `store notifications: ${st.sent} sent, ${st.killed.length} claims interrupted by SIGKILL (${st.killed.join(', ')}); ` +
      `the store was answered: ${st.answers.map((a) => `[${a}]`).join(' ')}, its 2xx ${st.settled.join(' and ')} s after the kill; ` +
      `${st.unapplied} unapplied notifications`,
  );
  const rm = r.reminders;
  console.log(
    `study reminders: ${rm.users} users due at ${rm.at} (of ${rm.prepared} prepared); pushed once ${rm.once}, ` +
      `${rm.duplicated} duplicated, ${rm.missed} missed; ${rm.inAppNotOne} without exactly one in-app reminder`,
  );
  const rd = r.redis;
  console.log(
    `redis failover: primary ${rd.primary} SIGKILLed, ${rd.newPrimary} promoted; authenticated requests failed ` +
      `for ${(rd.outageMs / 1000).toFixed(1)} s (${rd.failedRequests} of ${rd.requests} requests failed, the last answered ${(rd.lastFailureMs / 1000).toFixed(1)} s after the kill, the slowest took ${(rd.slowestMs / 1000).toFixed(1)} s); ` +
      `${rd.loggedOut} logged-out tokens (${rd.loggedOutDuring} logged out during the failover), ` +
      `${rd.accepted} accepted after it; lockout survived: ${rd.lockedAfter === 423 ? 'yes' : `no (${rd.lockedAfter})`}; ` +
      `login rate limit survived: ${rd.limitedAfter === 429 ? 'yes' : rd.sameMinute ? `no (${rd.limitedAfter})` : 'not checked (next minute)'}; ` +
      `answers of 500: ${rd.internalErrors}`,
  );
  if (rd.failures?.length) console.table(rd.failures.slice(0, 40));
  const o = r.outage;
  if (o) {
    const outageRow = rows.find((x) => x.phase.startsWith('database down'));
    console.log(
      `database outage: down ${DB_DOWN_MS / 1000} s; consumers used to give up after ${(OLD_GIVE_UP_MS / 1000).toFixed(2)} s` +
        `${RETRY_BACKOFF ? ` (EVENTS_RETRY_BACKOFF_MS=${RETRY_BACKOFF})` : ''}; events on the bus when it went: ${o.caughtOnBus ? 'yes' : 'no'}; ` +
        `waiting on it per consumer: ${JSON.stringify(o.waiting)}; ${outageRow['failed (5xx/network)']} requests failed meanwhile (not lost)`,
    );
    console.log(
      `events: ${o.deadLettered.length + o.unhandled} lost events (${o.deadLettered.length} dead-lettered, ${o.unhandled} never handled); ` +
        `${o.deleted} accounts deleted, ${o.notErased} not erased; ${o.bought} subscriptions bought, ${o.rolesNotApplied} roles not applied`,
    );
    if (o.deadLettered.length) console.table(o.deadLettered.slice(0, 20));
    if (o.unhandled) console.log('events not handled per consumer:', o.backlog);
    if (o.notErased) console.log('left of deleted accounts:', o.remnants);
  }
  if (r.unreadable.size)
    console.log(
      'reconciliation reads still failing after a minute (status: count):',
      Object.fromEntries(r.unreadable),
    );
  const failures = [];
  let rssTable;
  if (rss) {
    const mb = (kb) => (kb === undefined ? null : Math.round(kb / 1024));
    const limits = memoryLimits();
    rssTable = Object.entries(rss).map(([label, m]) => ({
      process: label,
      'line at start (MB)': mb(m.trend?.start),
      'line at end (MB)': mb(m.trend?.end),
      ratio: m.ratio === undefined ? null : +m.ratio.toFixed(2),
      'median 1st min (MB)': mb(m.firstWindow),
      'median last min (MB)': mb(m.lastWindow),
      'peak (MB)': mb(m.peak),
      'k8s limit (MB)': mb(limits[label.replace(/-\d+$/, '')]),
    }));
    console.log(
      'RSS in the soak (readings every 10 s; the verdict is the ratio of the line through the medians of its halves):',
    );
    console.table(rssTable);
    const grown = rssTable.filter((t) => t.ratio !== null && t.ratio > 1.2);
    if (grown.length)
      failures.push(`RSS grew more than 20 % in the soak: ${grown.map((t) => t.process).join(', ')}`);
    const gone = rssTable.filter((t) => t.ratio === null);
    if (gone.length) failures.push(`not running through the soak: ${gone.map((t) => t.process).join(', ')}`);
    const over = overLimits(rss, limits);
    if (over.length)
      failures.push(
        `peak RSS over 85 % of the Kubernetes memory limit: ${over.map((o) => `${o.process} ${mb(o.peakKb)} of ${mb(o.limitKb)} MB`).join(', ')}`,
      );
  }
  if (r.lost) failures.push(`${r.lost} acknowledged cards lost`);
  if (r.archivedBack) failures.push(`${r.archivedBack} acknowledged deletes undone (the card is back)`);
  if (r.reviewsLost) failures.push(`${r.reviewsLost} cards lost acknowledged reviews`);
  if (r.importsLost) failures.push(`${r.importsLost} acknowledged imported words lost`);
  if (r.subscriptionsLost) failures.push(`${r.subscriptionsLost} acknowledged subscriptions not active`);
  if (e.missing) failures.push(`${e.missing} events never reached the webhook receiver`);
  if (e.doubled) failures.push(`${e.doubled} events applied twice`);
  if (e.badSignatures) failures.push(`${e.badSignatures} deliveries failed the signature check`);
  if (r.unreadable.size) failures.push('the system did not recover: reads still failed after the chaos');
  if (st.sent < STORE_NOTIFICATIONS)
    failures.push(`only ${st.sent} of ${STORE_NOTIFICATIONS} Play purchases made`);
  if (st.killed.length < st.sent)
    failures.push(
      `${st.sent - st.killed.length} store notifications' claims were not interrupted by the kill`,
    );
  if (st.unapplied) failures.push(`${st.unapplied} store notifications never applied`);
  if (rm.users < REMINDER_USERS) failures.push(`only ${rm.users} of ${REMINDER_USERS} reminder users set up`);
  if (rm.duplicated || rm.missed || rm.inAppNotOne)
    failures.push(
      `study reminders: ${rm.duplicated} duplicated, ${rm.missed} missed, ${rm.inAppNotOne} without exactly one in-app`,
    );
  // an outage shorter than the old give-up budget would not show that consumers now outlast it
  if (r.outage && DB_DOWN_MS < 3 * OLD_GIVE_UP_MS)
    failures.push(
      `the database was down ${DB_DOWN_MS} ms, not 3 times the consumers' old give-up budget (${OLD_GIVE_UP_MS} ms)`,
    );
  if (rd.primary === rd.newPrimary) failures.push('no Redis failover happened');
  if (!rd.probes) failures.push('the Redis failover was not measured (no probe answered)');
  // the target (issue 40): under 5 s. The full run, with twice the users, does not meet it yet on a
  // 2-core machine, so the short run in npm test only bounds it; the full run fails on it
  if (!SHORT && rd.outageMs >= 5000)
    failures.push(
      `authenticated requests failed for ${Math.round(rd.outageMs)} ms after the Redis primary's kill`,
    );
  if (rd.accepted)
    failures.push(
      `${rd.accepted} logged-out tokens accepted after the Redis failover ` +
        `(logged out at / answered: ${rd.acceptedTokens.map((t) => `${t.loggedOutMs} ms / ${t.status}`).join(', ')})`,
    );
  if (rd.undecided)
    failures.push(`${rd.undecided} logged-out tokens still answered 5xx 10 s after the Redis failover`);
  if (rd.internalErrors) failures.push(`${rd.internalErrors} answers of 500 during the Redis failover`);
  if (rd.loggedOut < REDIS_LOGOUT_USERS)
    failures.push(`only ${rd.loggedOut} of ${REDIS_LOGOUT_USERS} logouts answered`);
  if (rd.lockedBefore !== 423 || rd.lockedAfter !== 423)
    failures.push(
      `lockout before/after the Redis failover: ${rd.lockedBefore}/${rd.lockedAfter} (423 expected)`,
    );
  if (rd.limitedBefore !== 429 || (rd.sameMinute && rd.limitedAfter !== 429))
    failures.push(
      `login rate limit before/after the Redis failover: ${rd.limitedBefore}/${rd.limitedAfter} (429 expected)`,
    );
  if (o) {
    if (!o.caughtOnBus) failures.push('the database went down with no event of the phase on the bus');
    if (o.deadLettered.length) failures.push(`${o.deadLettered.length} events dead-lettered`);
    if (o.unhandled) failures.push(`${o.unhandled} events never handled by their consumers`);
    if (o.deletesUnanswered || o.buysUnanswered)
      failures.push(
        `after the outage ${o.deletesUnanswered} account deletions and ${o.buysUnanswered} purchases still failed`,
      );
    if (o.notErased) failures.push(`${o.notErased} deleted accounts not erased (user.deleted not applied)`);
    if (o.rolesNotApplied)
      failures.push(`${o.rolesNotApplied} purchases whose subscription.created did not reach identity`);
  }
  if (cards.length === 0 || acknowledgedReviews === 0) failures.push('the workload made no progress');
  const rolling = rows.find((x) => x.phase.startsWith('rolling'));
  if (rolling['failed (5xx/network)'] > 0)
    failures.push(`${rolling['failed (5xx/network)']} requests failed during the rolling restart`);
  const kill = rows.find((x) => x.phase.startsWith('SIGKILL'));
  const idempotentKilled = kill['failed (5xx/network)'] - kill['of them non-idempotent'];
  if (idempotentKilled > 0)
    failures.push(`${idempotentKilled} idempotent requests failed in the SIGKILL phase`);
  // the full run's figures are the ones bench/README.md shows (npm run bench:report); the short run
  // inside npm test writes none
  if (!SHORT || process.env.BENCH_RESULT)
    await writeResult('chaos', {
      settings: {
        users: USERS,
        phaseSeconds: PHASE_MS / 1000,
        soakSeconds: SOAK_MS / 1000,
        databaseDownSeconds: DB_DOWN_MS / 1000,
        oldGiveUpSeconds: OLD_GIVE_UP_MS / 1000,
        killRounds: KILL_ROUNDS,
      },
      phases: rows,
      reconciliation: {
        cards: cards.length,
        cardsLost: r.lost,
        reviews: acknowledgedReviews,
        cardsMissingReviews: r.reviewsLost,
        imported,
        importsLost: r.importsLost,
        subscriptions: purchased,
        subscriptionsNotActive: r.subscriptionsLost,
        deletes: cards.filter((c) => c.archived === true).length,
        deletesUndone: r.archivedBack,
      },
      webhooks: e,
      storeNotifications: { sent: st.sent, killed: st.killed.length, unapplied: st.unapplied },
      reminders: { users: rm.users, pushedOnce: rm.once, duplicated: rm.duplicated, missed: rm.missed },
      redisFailover: {
        outageMs: rd.outageMs,
        failedRequests: rd.failedRequests,
        requests: rd.requests,
        lastFailureMs: rd.lastFailureMs,
        slowestMs: rd.slowestMs,
        // how the failed requests were answered (status and error code: count)
        failedAs: Object.fromEntries(
          Object.entries(
            Object.groupBy(rd.failures ?? [], (f) => `${f.status}${f.code ? ` ${f.code}` : ''}`),
          ).map(([k, v]) => [k, v.length]),
        ),
        loggedOutTokensAccepted: rd.accepted,
        internalErrors: rd.internalErrors,
      },
      databaseOutage: o
        ? {
            lostEvents: o.deadLettered.length + o.unhandled,
            accountsDeleted: o.deleted,
            notErased: o.notErased,
          }
        : null,
      rss:
        rssTable?.map((t) => ({
          process: t.process,
          ratio: t.ratio,
          peakMb: t['peak (MB)'],
          limitMb: t['k8s limit (MB)'],
        })) ?? null,
      failures,
      verdict: failures.length ? 'failed' : 'passed',
    });
  if (failures.length) {
    console.error(`chaos: FAILED: ${failures.join('; ')}`);
    process.exitCode = 1;
  } else console.log('chaos: passed');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
