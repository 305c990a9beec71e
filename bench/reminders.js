#!/usr/bin/env node
// Study reminders at scale (issue 37 item 6, ADR 0028): N users (BENCH_USERS, default 100,000) whose
// daily reminders fall on the same instant T, in seven zones with whole, 30- and 45-minute offsets,
// half of them with an iPhone and half with an Android phone. From T it measures the time until the
// APNs and FCM stand-ins have received a push for every user (target: 60 s), the CPU the three
// services used from T until they went quiet after the last push (divided by the pushes received by
// then), and the peak RSS of each. identity, flashcards and notifications run their built dist (`npx tsc -b` first) in three
// child processes on databases `<tag>_<service>` and the events streams <TAG>*, with the gRPC peers
// wired; the stand-ins (services/notifications/test/support: real HTTP/2 and HTTP servers that verify
// the provider tokens) run in this process, so it needs a node that strips types (node_modules/.bin/
// node, v24, which npm puts first on the PATH; the script runs itself again with it and --no-warnings). Users are seeded by bulk inserts, cloned from one user registered through identity's HTTP API
// so the document shapes stay the service's own; then each user's local reminder time is set to T's
// wall-clock time in their zone and `nextReminderAt` to T, as the service computes it (checked with
// its calendar). Every 5 s it prints where the backlog sits (reminders not yet decided by flashcards'
// scheduler, events staged in its outbox, events waiting for and in notifications' consumer, pushes
// received) and the CPU share of each process. Needs the local FerretDB, NATS and Redis
// (deploy/local/infra.sh up). The figures of the last run of each size are kept in
// bench/results/reminders.json (BENCH_RESULT: another file).
// Everything it made (databases, streams, Redis keys, processes, servers) is removed at the end, also
// after a failure or Ctrl-C.
//   flock /tmp/bench.lock npm run bench:reminders         BENCH_USERS=100000 BENCH_DEADLINE_S=300
//   BENCH_USERS=200 npm run bench:reminders                a quick check of the wiring
//   BENCH_PROBE=0: no backlog probe (two counts on the database and one NATS request every 5 s)
//   BENCH_KEEP_LOGS=1: keep the services' logs (warn and above; their directory is printed)
//   BENCH_CPU_PROF_DIR=<dir>: a V8 CPU profile of each service there (node bench/journey/profile-top.js
//   <dir> --last-s <seconds since T> shows where the time went)
const { spawn } = require('node:child_process');
const { createHash, randomBytes, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

// the stand-ins are TypeScript: run again with the repository's node (v24) when this one cannot strip
// types, and with --no-warnings (node warns on loading them)
if (!process.features.typescript || !process.execArgv.includes('--no-warnings')) {
  const node = path.join(ROOT, 'node_modules/.bin/node');
  const child = spawn(
    node,
    ['--no-warnings', path.join(__dirname, 'reminders.js'), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return;
}

const {
  cpuMsOf,
  freePortRun,
  localTime,
  pidsMatching,
  startProcess,
  statusKb,
  writeJson,
} = require('./support');

const N = Number(process.env.BENCH_USERS ?? 100_000);
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 300);
const TARGET_S = 60;
const PROBE = process.env.BENCH_PROBE !== '0';
const CHUNK = 1_000;
const ZONES = [
  'Asia/Kathmandu', // +5:45
  'Asia/Kolkata', // +5:30
  'America/St_Johns', // −3:30 (−2:30 in summer)
  'Australia/Adelaide', // +9:30 (+10:30 in summer)
  'Europe/Berlin',
  'America/New_York',
  'Pacific/Chatham', // +12:45 (+13:45 in summer)
];
const SERVICES = ['identity', 'flashcards', 'notifications'];
const tag = `brem${Date.now().toString(36)}`;
const MONGO_URL = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const RESULT = process.env.BENCH_RESULT ?? path.join(__dirname, 'results/reminders.json');

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const mb = (kb) => Math.round(kb / 1024);
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Undone in reverse order at the end, whether the run succeeded or not. */
const cleanups = [];
async function cleanUp() {
  while (cleanups.length > 0) {
    const [what, fn] = cleanups.pop();
    await fn().catch((err) => console.error(`cleanup: ${what} failed: ${err.message}`));
  }
}

/**
 * The CPU (ms) a changing set of processes has used since the first call: the database's connection
 * backends come and go, so each pid is counted from when it was first seen (in full when it appeared
 * after the first call); what a pid used between the last look and its exit is missed.
 */
function cpuOfGroup(needles) {
  const last = new Map();
  let total = 0;
  let first = true;
  return () => {
    for (const pid of needles.flatMap(pidsMatching)) {
      const ms = cpuMsOf([pid]);
      if (ms === null) continue;
      if (!first) total += ms - (last.get(pid) ?? 0);
      last.set(pid, ms);
    }
    first = false;
    return total;
  };
}

/** APNs and FCM stand-ins with fresh keys, and the env that points notifications at them. */
async function startStandIns(dir) {
  // the notifications tests' helper (node strips its types)
  const { startPushStandIns } = await import(
    path.join(ROOT, 'services/notifications/test/support/push-stand-ins.ts')
  );
  const standIns = await startPushStandIns(dir);
  cleanups.push(['close the APNs and FCM stand-ins', () => standIns.close()]);
  return standIns;
}

/** The three services, each its own process from its dist, on free ports and this run's databases and streams. */
async function startServices(dir, pushEnv) {
  const { startMailSink } = require('../deploy/local/mail-sink');
  // the template user's verification mail goes here, not to a sink someone else runs on 1025
  const mail = await startMailSink({ port: 0 });
  cleanups.push(['close the mail sink', () => mail.close()]);
  const base = await freePortRun(6);
  const port = {};
  SERVICES.forEach((s, i) => {
    port[`${s}Http`] = base + 2 * i;
    port[`${s}Grpc`] = base + 2 * i + 1;
  });
  const env = {
    NODE_ENV: 'test', // development keys for assertions and gRPC call signing
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    MONGO_URL,
    NATS_URL,
    EVENTS_STREAM: tag.toUpperCase(),
    EVENTS_SUBJECT_PREFIX: tag,
    RATE_LIMIT_PREFIX: `${tag}-rl`,
    IDEMPOTENCY_PREFIX: `${tag}-idem`,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(mail.port),
    IDENTITY_BCRYPT_COST: '4', // the template user's registration is set-up
    FLASHCARDS_ADDR: `127.0.0.1:${port.flashcardsGrpc}`,
    IDENTITY_ADDR: `127.0.0.1:${port.identityGrpc}`,
    ...pushEnv,
    // a V8 profile per service, written when it stops (bench/journey/profile-top.js reads them)
    ...(process.env.BENCH_CPU_PROF_DIR && {
      NODE_OPTIONS:
        `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`.trim(),
    }),
  };
  for (const s of SERVICES) {
    const S = s.toUpperCase();
    env[`${S}_HTTP_PORT`] = String(port[`${s}Http`]);
    env[`${S}_GRPC_PORT`] = String(port[`${s}Grpc`]);
    env[`${S}_METRICS_PORT`] = '0';
    env[`${S}_MONGO_DB`] = `${tag}_${s}`;
  }
  const running = {};
  // stopped before the databases are dropped (a database dropped under a writing service breaks FerretDB)
  cleanups.push([
    'stop the services',
    () =>
      Promise.all(
        Object.values(running).map(
          ({ child }) =>
            child.exitCode === null &&
            child.signalCode === null &&
            new Promise((resolve) => {
              const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
              child.once('exit', () => (clearTimeout(kill), resolve()));
              child.kill('SIGTERM');
            }),
        ),
      ),
  ]);
  // one at a time: FerretDB creates a table per collection at boot, and did not like many at once
  for (const s of SERVICES) {
    const file = path.join(dir, `${s}.log`);
    const fd = fs.openSync(file, 'a');
    try {
      running[s] = await startProcess({
        script: path.join(ROOT, `services/${s}/dist/main.js`),
        env,
        port: port[`${s}Http`],
        name: s,
        stdio: ['ignore', fd, fd],
      });
    } catch (err) {
      const tail = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
      throw new Error(`${err.message}; its last log lines:\n${tail}`, { cause: err });
    } finally {
      fs.closeSync(fd);
    }
    running[s].log = file;
  }
  return running;
}

/** Registers one user through identity's HTTP API, as the app would through the gateway. */
async function registerTemplateUser(identityUrl) {
  const { devAssertionKey } = require('../libs/auth/dist');
  const { forwardedByGateway } = require('../libs/testing/dist');
  const call = async (method, p, body, token) => {
    const headers = {
      'content-type': 'application/json',
      // what the gateway adds: the service's internal assertion for the client's token
      ...(token && forwardedByGateway(token, { audience: 'identity', key: devAssertionKey('identity') })),
    };
    const res = await fetch(`${identityUrl}${p}`, { method, headers, body: JSON.stringify(body) });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const reg = await call('POST', '/api/v1/auth/register', {
    email: `${tag}@example.com`,
    username: `${tag}_t`,
    password: 'Secret123',
  });
  const { accessToken, userId } = reg.data;
  await call('PUT', '/api/users/profile', { timezone: 'Europe/Berlin' }, accessToken);
  await call(
    'PUT',
    '/api/users/settings',
    { reminderEnabled: true, reminderTime: '12:00', pushNotifications: true },
    accessToken,
  );
  const ios = {
    platform: 'ios',
    token: randomBytes(32).toString('hex'),
    appVersion: '2.0.0',
    locale: 'en-US',
  };
  const android = { platform: 'android', token: fcmToken(), appVersion: '2.0.0', locale: 'en-US' };
  await call('POST', '/api/users/devices', ios, accessToken);
  await call('POST', '/api/users/devices', android, accessToken);
  return userId;
}

/** A token in FCM's shape (the service checks [A-Za-z0-9_:-]{100,}). */
const fcmToken = () => `${randomBytes(8).toString('hex')}:APA91b${randomBytes(105).toString('base64url')}`;

/** Clones the template user's documents N times with fresh ids, names and tokens (bulk inserts). */
async function seed(client, templateId) {
  const identity = client.db(`${tag}_identity`);
  const flashcards = client.db(`${tag}_flashcards`);
  const userTpl = await identity.collection('users').findOne({ _id: templateId });
  const deviceTpls = await identity.collection('devices').find({ userId: templateId }).toArray();
  const profileTpl = await flashcards.collection('learning_profiles').findOne({ _id: templateId });
  if (!userTpl || deviceTpls.length !== 2 || !profileTpl?.nextReminderAt)
    throw new Error('the template user is not as registered (user, two devices, a reminder instant)');
  // the template itself is not one of the N: out of the schedule
  await flashcards
    .collection('learning_profiles')
    .updateOne({ _id: templateId }, { $unset: { nextReminderAt: 1 } });
  // staged events are not copied: N copies of the template's user.created would be published
  const strip = (doc) => {
    const copy = { ...doc };
    delete copy._outbox;
    delete copy._outboxPending;
    return copy;
  };
  const user = strip(userTpl);
  const profile = strip(profileTpl);
  delete profile.nextReminderAt; // set for all at once when T is known
  const deviceOf = Object.fromEntries(deviceTpls.map((d) => [d.platform, d]));
  const tokens = new Map(); // push token → platform
  for (let from = 0; from < N; from += CHUNK) {
    const users = [];
    const devices = [];
    const profiles = [];
    for (let i = from; i < Math.min(N, from + CHUNK); i++) {
      const id = randomUUID();
      const zone = ZONES[i % ZONES.length];
      // 7 zones and 2 platforms cycle independently: every zone has both
      const platform = i % 2 === 0 ? 'ios' : 'android';
      const token = platform === 'ios' ? randomBytes(32).toString('hex') : fcmToken();
      tokens.set(token, platform);
      const username = `${tag}_u${i.toString(36)}`;
      users.push({
        ...user,
        _id: id,
        email: `${tag}.${i}@example.com`,
        username,
        usernameKey: username.toLowerCase(),
        profile: { ...user.profile, timezone: zone },
      });
      devices.push({
        ...deviceOf[platform],
        _id: randomUUID(),
        userId: id,
        token,
        tokenKey: createHash('sha256').update(token).digest('hex'),
      });
      profiles.push({ ...profile, _id: id, timezone: zone });
    }
    // one collection at a time: the shared FerretDB has other users
    await identity.collection('users').insertMany(users, { ordered: false });
    await identity.collection('devices').insertMany(devices, { ordered: false });
    await flashcards.collection('learning_profiles').insertMany(profiles, { ordered: false });
    if ((from / CHUNK) % 10 === 9) log(`  seeded ${from + CHUNK} of ${N}`);
  }
  return tokens;
}

/**
 * Sets every seeded user's local reminder time to T's in their zone, and `nextReminderAt` to T, as
 * the service computes it (its calendar must find T as the next instant of that local time).
 */
async function scheduleAt(client, T, templateId) {
  const { nextTimeOfDay } = require('../services/flashcards/dist/domain/learning/calendar');
  const users = client.db(`${tag}_identity`).collection('users');
  const profiles = client.db(`${tag}_flashcards`).collection('learning_profiles');
  for (const zone of ZONES) {
    const time = localTime(new Date(T), zone);
    const next = nextTimeOfDay(new Date(T - 60_000), time, zone);
    if (next.getTime() !== T)
      throw new Error(`${zone} ${time}: the service's next instant is ${next.toISOString()}`);
    const seeded = { _id: { $ne: templateId } };
    await users.updateMany(
      { ...seeded, 'profile.timezone': zone },
      { $set: { 'settings.reminderTime': time } },
    );
    await profiles.updateMany(
      { ...seeded, timezone: zone },
      { $set: { reminderTime: time, nextReminderAt: new Date(T) } },
    );
  }
}

async function main() {
  const started = Date.now();
  const load = os.loadavg();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lingua-bench-reminders-'));
  cleanups.push([
    'remove the temporary directory',
    async () =>
      process.env.BENCH_KEEP_LOGS
        ? log(`logs kept in ${dir}`)
        : fs.rmSync(dir, { recursive: true, force: true }),
  ]);
  // registered first, so it runs after the processes have stopped
  cleanups.push([
    'remove the databases, streams and Redis keys',
    () => require('../libs/testing/src/test-resources').removeResources([tag]),
  ]);
  log(
    `reminders bench ${tag}: ${N} users, deadline ${DEADLINE_S} s, load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
  );

  const { apns, fcm, env: pushEnv } = await startStandIns(dir);
  const services = await startServices(dir, pushEnv);
  const pids = Object.fromEntries(SERVICES.map((s) => [s, services[s].child.pid]));
  log(`services up: ${SERVICES.map((s) => `${s} ${pids[s]}`).join(', ')}`);

  const { MongoClient } = require('mongodb');
  const client = new MongoClient(MONGO_URL, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  cleanups.push(['close the database client', () => client.close()]);

  const templateId = await registerTemplateUser(services.identity.url);
  const seedStart = Date.now();
  const tokens = await seed(client, templateId);
  const seedS = (Date.now() - seedStart) / 1000;
  log(`seeded ${N} users, ${N} devices and ${N} learning profiles in ${seedS.toFixed(1)} s`);

  // T: a minute boundary with room for the updates (at 2,000 users they took 1.5 times the seeding)
  const updateRoomMs = 20_000 + seedS * 1000 * 3;
  const T = Math.ceil((Date.now() + updateRoomMs) / 60_000) * 60_000;
  const scheduleStart = Date.now();
  await scheduleAt(client, T, templateId);
  log(`schedule written in ${((Date.now() - scheduleStart) / 1000).toFixed(1)} s`);
  if (Date.now() > T - 1_000)
    throw new Error('the schedule was not written before T: rerun (or raise the room)');
  log(
    `all ${N} reminders due at ${new Date(T).toISOString()} (in ${((T - Date.now()) / 1000).toFixed(0)} s)`,
  );

  const { connectNats } = require('../libs/events/dist');
  const nats = await connectNats(NATS_URL, { name: `${tag}-probe` });
  cleanups.push(['close the NATS probe', () => nats.close()]);
  const profiles = client.db(`${tag}_flashcards`).collection('learning_profiles');
  const dbCpu = cpuOfGroup(['ferretdb', 'postgres']);
  const natsCpu = cpuOfGroup(['nats-server']);
  const cpuOf = () => ({
    ...Object.fromEntries(SERVICES.map((s) => [s, cpuMsOf([pids[s]])])),
    db: dbCpu(),
    nats: natsCpu(),
    bench: (() => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    })(),
  });
  const rssAtT = {};

  await sleep(T - Date.now());
  const cpu0 = cpuOf();
  for (const s of SERVICES) rssAtT[s] = statusKb(pids[s], 'VmRSS');

  // what the stand-ins received: each seeded token once; anything else counted apart
  const seen = new Set();
  let duplicates = 0;
  let foreign = 0;
  const arrivals = [];
  const cursor = { apns: 0, fcm: 0 };
  const ingest = () => {
    for (const [name, list] of [
      ['apns', apns.requests],
      ['fcm', fcm.requests],
    ]) {
      for (; cursor[name] < list.length; cursor[name]++) {
        const r = list[cursor[name]];
        if (!tokens.has(r.token)) foreign++;
        else if (seen.has(r.token)) duplicates++;
        else {
          seen.add(r.token);
          arrivals.push(r.at - T);
        }
      }
    }
  };

  const timeline = [];
  let last = { at: T, cpu: cpu0 };
  const probe = async () => {
    const now = Date.now();
    const cpu = cpuOf();
    const pct = (k) => Math.round((100 * (cpu[k] - last.cpu[k])) / (now - last.at));
    const row = { t: Math.round((now - T) / 1000), pushed: seen.size };
    if (PROBE) {
      // where the backlog sits: not yet decided by flashcards' scheduler (an index-served count), decided
      // and not yet published by its outbox relay, published and not yet taken by notifications' consumer,
      // taken and not yet acknowledged; the probe's own time shows what it costs
      const subject = `${tag}.reminder.triggered`;
      const [undecided, stream, consumer] = await Promise.all([
        profiles.countDocuments({ nextReminderAt: { $lte: new Date(T) } }),
        nats.jsm.streams.info(tag.toUpperCase(), { subjects_filter: subject }).catch(() => undefined),
        nats.jsm.consumers.info(tag.toUpperCase(), 'notifications-reminders').catch(() => undefined),
      ]);
      const published = stream?.state.subjects?.[subject] ?? 0;
      Object.assign(row, {
        undecided,
        'in outbox': N - undecided - published,
        'bus waiting': consumer?.num_pending ?? '-',
        'in flight': consumer?.num_ack_pending ?? '-',
        'probe ms': Date.now() - now,
      });
    }
    for (const k of [...SERVICES, 'db', 'nats', 'bench']) row[`${k.slice(0, 5)} %`] = pct(k);
    timeline.push(row);
    console.log(
      `  ${String(row.t).padStart(4)} s  ${Object.entries(row)
        .slice(1)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    last = { at: now, cpu };
  };

  log(`T: waiting for ${N} pushes (at most ${DEADLINE_S} s)`);
  let nextProbe = T + 5_000;
  while (seen.size < N && Date.now() < T + DEADLINE_S * 1000) {
    await sleep(200);
    ingest();
    if (Date.now() >= nextProbe) {
      await probe();
      nextProbe += 5_000;
    }
  }
  ingest();
  const delivered = seen.size;
  arrivals.sort((a, b) => a - b);
  const seconds = delivered > 0 ? arrivals.at(-1) / 1000 : null;
  // the work after the last push (marking the sends delivered) belongs to the reminders too: counted
  // until the services are quiet (under 5 % of a core for a second, at most 15 s)
  for (let i = 0; i < 15; i++) {
    const a = cpuOf();
    await sleep(1_000);
    const b = cpuOf();
    if (SERVICES.every((s) => b[s] - a[s] < 50)) break;
  }
  const cpu1 = cpuOf();
  const cpuWindowEnd = Date.now();
  // what the CPU window paid for: pushes by its end (past the deadline, more arrive while the services finish)
  ingest();
  const pushedByEnd = seen.size;
  const cpuMs = Object.fromEntries(Object.keys(cpu1).map((k) => [k, cpu1[k] - cpu0[k]]));
  const peakKb = Object.fromEntries(SERVICES.map((s) => [s, statusKb(pids[s], 'VmHWM')]));
  const perReminder = (ms) => (pushedByEnd > 0 ? ms / pushedByEnd : null);
  const servicesMs = SERVICES.reduce((sum, s) => sum + cpuMs[s], 0);
  const pctile = (p) =>
    arrivals.length === 0
      ? null
      : +(arrivals[Math.min(arrivals.length - 1, Math.floor((p / 100) * arrivals.length))] / 1000).toFixed(1);
  // the other half of each reminder, beside the push: the in-app one and the send's record
  const notificationsDb = client.db(`${tag}_notifications`);
  const inApp = await notificationsDb.collection('notifications').countDocuments({ type: 'study_reminder' });
  const sendsDelivered = await notificationsDb
    .collection('reminder_sends')
    .countDocuments({ deliveredAt: { $ne: null } });
  const warnings = Object.fromEntries(
    SERVICES.map((s) => [s, fs.readFileSync(services[s].log, 'utf8').split('\n').filter(Boolean).length]),
  );

  console.log();
  console.table(
    Object.fromEntries(
      [...SERVICES, 'db', 'nats', 'bench'].map((k) => [
        k === 'db'
          ? 'database (shared: FerretDB + PostgreSQL)'
          : k === 'bench'
            ? 'this process (stand-ins)'
            : k,
        {
          'CPU s': +(cpuMs[k] / 1000).toFixed(1),
          'CPU ms/reminder': perReminder(cpuMs[k]) === null ? '-' : +perReminder(cpuMs[k]).toFixed(3),
          'RSS at T MB': SERVICES.includes(k) ? mb(rssAtT[k]) : '-',
          'peak RSS MB': SERVICES.includes(k) ? mb(peakKb[k]) : '-',
          'log lines': SERVICES.includes(k) ? warnings[k] : '-',
        },
      ]),
    ),
  );
  console.log(
    `pushes: APNs ${apns.requests.length}, FCM ${fcm.requests.length}; distinct users ${delivered}, duplicates ${duplicates}, unknown tokens ${foreign}; ` +
      `arrival from T: first ${pctile(0)} s, p50 ${pctile(50)} s, p90 ${pctile(90)} s, p99 ${pctile(99)} s; ` +
      `by the end of the CPU window (${((cpuWindowEnd - T) / 1000).toFixed(0)} s): pushes ${pushedByEnd}, ` +
      `in-app reminders stored ${inApp}, sends recorded delivered ${sendsDelivered}`,
  );
  const f3 = (ms) => (perReminder(ms) === null ? '-' : perReminder(ms).toFixed(3));
  const handed =
    delivered === N
      ? `${N} handed to APNs/FCM in ${seconds.toFixed(1)} s (target ${TARGET_S} s)`
      : `${delivered} of ${N} handed to APNs/FCM within ${DEADLINE_S} s (target: all in ${TARGET_S} s)`;
  console.log(
    `reminders: ${handed}; CPU per reminder ${f3(servicesMs)} ms (identity ${f3(cpuMs.identity)}, flashcards ${f3(cpuMs.flashcards)}, notifications ${f3(cpuMs.notifications)}); ` +
      `peak RSS identity/flashcards/notifications ${SERVICES.map((s) => mb(peakKb[s])).join('/')} MB`,
  );
  const ratio = delivered === N ? seconds / TARGET_S : null;
  console.log(ratio === null ? 'ratio X/60: – (not all arrived)' : `ratio X/60: ${ratio.toFixed(2)}`);

  fs.mkdirSync(path.dirname(RESULT), { recursive: true });
  const round = (x, d = 3) => (x === null ? null : +x.toFixed(d));
  // the last run of each size: a full run that misses the deadline sits beside the largest that finishes
  let kept = {};
  try {
    kept = JSON.parse(fs.readFileSync(RESULT, 'utf8')).runs ?? {};
  } catch {
    // none yet
  }
  const run = {
    date: new Date(started).toISOString(),
    machine: {
      cpus: os.cpus().length,
      loadAverageAtStart: load.map((l) => round(l, 2)),
      node: process.version,
    },
    users: N,
    zones: ZONES,
    dueAt: new Date(T).toISOString(),
    delivered,
    duplicates,
    inAppStored: inApp,
    sendsDelivered,
    seconds: round(seconds, 1),
    targetSeconds: TARGET_S,
    ratioToTarget: round(ratio, 2),
    arrivalSeconds: {
      first: pctile(0),
      p50: pctile(50),
      p90: pctile(90),
      p99: pctile(99),
      last: round(seconds, 1),
    },
    cpuWindowSeconds: round((cpuWindowEnd - T) / 1000, 1),
    pushedByCpuWindowEnd: pushedByEnd,
    cpuPerReminderMs: {
      services: round(perReminder(servicesMs)),
      ...Object.fromEntries(Object.keys(cpuMs).map((k) => [k, round(perReminder(cpuMs[k]))])),
    },
    cpuSeconds: Object.fromEntries(Object.keys(cpuMs).map((k) => [k, round(cpuMs[k] / 1000, 1)])),
    peakRssMb: Object.fromEntries(SERVICES.map((s) => [s, mb(peakKb[s])])),
    rssAtTMb: Object.fromEntries(SERVICES.map((s) => [s, mb(rssAtT[s])])),
    seedSeconds: round(seedS, 1),
    timeline,
  };
  const runs = { ...kept, [N]: run };
  await writeJson(RESULT, { bench: 'reminders', runs });
  log(`figures written to ${path.relative(process.cwd(), RESULT)}`);
}

let stopping = false;
const finish = async (code) => {
  if (stopping) return;
  stopping = true;
  await cleanUp();
  process.exit(code);
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void finish(130));
main().then(
  () => finish(0),
  (err) => {
    // the stack, not the object: a bulk write error carries every inserted id
    console.error(err.stack ?? err);
    return finish(1);
  },
);
