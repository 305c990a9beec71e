#!/usr/bin/env node
// Peak memory of two concurrent large uploads, before and after streaming them, side by side in one run.
//   - builds: this tree, and BENCH_BASELINE_DIR when set (a checkout of an earlier commit with its
//     services' dist/ built, and its own node_modules), e.g. the commit before avatars and imports
//     were streamed:
//       mkdir /tmp/base && git archive <commit> | tar -x -C /tmp/base && cp -a node_modules /tmp/base/ \
//         && cp -a services/flashcards/node_modules /tmp/base/services/flashcards/ \
//         && (cd /tmp/base && node_modules/.bin/tsc -b services/identity services/flashcards)
//   - each service runs in its own process from its dist/main.js with NODE_ENV=production, a fresh
//     process per build and scenario, against the local FerretDB, NATS and Redis
//   - scenarios (premium users, so the 50 MiB limit applies):
//       identity: two concurrent PUT /api/users/profile, each a 50 MiB avatar (PNG signature + random)
//       flashcards: two concurrent POST /api/import/cards, each a CSV of BENCH_IMPORT_ROWS rows (default
//       10,000, the per-file maximum) padded to about 48 MiB (long definitions and examples), all valid
//   - each process runs in its own memory cgroup limited to BENCH_MEMORY_LIMIT_MIB (default 512), as a
//     container with that limit would (cgroup v1 or v2, when this process may create one; otherwise
//     unlimited and said so). Node sizes its heap from that limit, as it does in a container
//   - a small upload of the same kind warms each process up; then its peaks are reset, its RSS read
//     ("ready"), the two big uploads sent, and the peaks read: VmHWM (/proc/<pid>/status) and the
//     cgroup's maximum usage. An OOM kill is reported as such
// Prints a table and the ratios baseline/current of peak RSS and of what the uploads added.
// Every database, stream and key it makes is removed at the end. Needs a Linux /proc.
const { Blob } = require('node:buffer');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
// Node's global FormData (undici's), named for the linter
const { FormData } = globalThis;
const { freePort } = require('./support');

const ROOT = path.resolve(__dirname, '..');
const BASELINE = process.env.BENCH_BASELINE_DIR;
const AVATAR_BYTES = Number(process.env.BENCH_AVATAR_MIB ?? 50) * 1024 * 1024;
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const IMPORT_TARGET_BYTES = 48 * 1024 * 1024;
const MiB = 1024 * 1024;
const tag = `bench_upmem_${Date.now().toString(36)}`;
const JWT_SECRET = crypto.randomBytes(32).toString('hex');
// what production requires beyond the secrets: one assertion key per service (the gateway's internal
// assertions; here one key for all), and non-development public settings
const ASSERTION_KEY = crypto.randomBytes(32).toString('hex');
const AUDIENCES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
const PRODUCTION_ENV = {
  ...Object.fromEntries(AUDIENCES.map((aud) => [`${aud.toUpperCase()}_ASSERTION_KEY`, ASSERTION_KEY])),
  IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.example',
  GOOGLE_AUDIENCES: 'lingua-bench.apps.googleusercontent.com',
};
/**
 * What the gateway forwards with a client's token: the bearer token (read by builds before the
 * internal assertions) and the service's assertion (read by builds after them).
 */
function forwarded(audience, token) {
  const { createAssertionSigner } = require(path.join(ROOT, 'libs', 'auth', 'dist'));
  const signer = createAssertionSigner(Object.fromEntries(AUDIENCES.map((aud) => [aud, ASSERTION_KEY])));
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  return { authorization: `Bearer ${token}`, 'x-lingua-assertion': signer.sign(audience, claims) };
}

const LIMIT_MIB = Number(process.env.BENCH_MEMORY_LIMIT_MIB ?? 512);

/** A fresh memory cgroup with the limit, under this process's own; undefined when none can be made. */
function memoryCgroup(name) {
  const own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = own.find((l) => /^\d+:memory:/.test(l))?.split(':')[2];
  const v2 = own.find((l) => l.startsWith('0::'))?.slice(3);
  const candidates = [
    v1 !== undefined && { dir: path.join('/sys/fs/cgroup/memory', v1, name), v: 1 },
    v2 !== undefined && { dir: path.join('/sys/fs/cgroup', v2, name), v: 2 },
  ].filter(Boolean);
  for (const { dir, v } of candidates) {
    try {
      fs.mkdirSync(dir);
      const limit = String(LIMIT_MIB * MiB);
      fs.writeFileSync(path.join(dir, v === 1 ? 'memory.limit_in_bytes' : 'memory.max'), limit);
      return {
        dir,
        peak: () =>
          Number(
            fs.readFileSync(path.join(dir, v === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak'), 'utf8'),
          ),
        resetPeak: () => {
          try {
            fs.writeFileSync(path.join(dir, v === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak'), '0');
          } catch {
            // memory.peak is resettable only on newer kernels
          }
        },
        remove: () => fs.rmdirSync(dir),
      };
    } catch {
      fs.rmSync(dir, { recursive: false, force: true });
    }
  }
  return undefined;
}

/** Resets the process's VmHWM to its current RSS (Linux: clear_refs 5). */
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not permitted: the peak then covers the warm-up too
  }
}

function status(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function startService(root, service, n, extraEnv = {}) {
  const SVC = service.toUpperCase();
  const port = await freePort();
  const name = `${tag}_${n}`;
  const cgroup = memoryCgroup(name);
  const main = path.join(root, 'services', service, 'dist', 'main.js');
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    JWT_SECRET,
    ...PRODUCTION_ENV,
    EMAIL_LINK_KEY: crypto.randomBytes(32).toString('base64'),
    IDENTITY_BCRYPT_COST: '4',
    [`${SVC}_HTTP_PORT`]: String(port),
    [`${SVC}_GRPC_PORT`]: '0',
    [`${SVC}_MONGO_DB`]: name,
    EVENTS_STREAM: name.toUpperCase(),
    EVENTS_SUBJECT_PREFIX: name,
    FLASHCARDS_ADDR: '127.0.0.1:1',
    // called directly, without the gateway's budget: what is measured is memory, not the deadline
    REQUEST_DEADLINE_MS: '120000',
    ...extraEnv,
  };
  // the shell joins the cgroup, then becomes node: the process is limited from its first byte
  const child = cgroup
    ? spawn(
        '/bin/sh',
        ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup.dir, process.execPath, main],
        {
          env,
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      )
    : spawn(process.execPath, [main], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 300) throw new Error(`${service} (${root}) did not become ready`);
    try {
      if ((await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) })).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, child, db: name, cgroup };
}

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });

/**
 * Warm-up, reset of the peaks, then `big` (the two concurrent uploads); the figures of the process.
 * A process killed meanwhile (the cgroup's OOM killer) is reported, not thrown.
 */
async function measure(svc, warmUp, big) {
  await warmUp();
  resetPeak(svc.child.pid);
  svc.cgroup?.resetPeak();
  const ready = status(svc.child.pid).rss;
  const started = performance.now();
  const outcome = await big().then(
    (answers) => ({ answers }),
    (err) => ({ err }),
  );
  const seconds = (performance.now() - started) / 1000;
  // a failed upload may be the process being killed: its exit can arrive after the socket's error
  if (outcome.err && svc.child.exitCode === null && svc.child.signalCode === null)
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      svc.child.once('exit', () => resolve(clearTimeout(timer)));
    });
  if (svc.child.exitCode !== null || svc.child.signalCode !== null)
    return { ready, seconds, killed: svc.child.signalCode ?? `exit ${svc.child.exitCode}` };
  if (outcome.err) throw outcome.err;
  const { peak } = status(svc.child.pid);
  return { ready, peak, cgroupPeak: svc.cgroup?.peak(), seconds, answers: outcome.answers };
}

async function finish(svc) {
  await stop(svc.child);
  svc.cgroup?.remove();
}

const png = (bytes) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), crypto.randomBytes(bytes - 8)]);

/** Two premium identity users uploading a 50 MiB avatar each, at the same time. */
async function avatarScenario(root, n) {
  const avatarDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-avatars-'));
  // IDENTITY_AVATAR_DIR: read by the baseline only (avatars on disk); the current build ignores it
  const svc = await startService(root, 'identity', n, { IDENTITY_AVATAR_DIR: avatarDir });
  const { MongoClient } = require('mongodb');
  const mongo = await MongoClient.connect(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017');
  try {
    const tokens = [];
    for (let i = 0; i < 2; i++) {
      const id = crypto.randomBytes(4).toString('hex');
      const res = await fetch(`${svc.url}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.77.${n}.${i + 1}` },
        body: JSON.stringify({ email: `m${id}@example.com`, password: 'Secret123', username: `m${id}` }),
      });
      if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
      const { data } = await res.json();
      await mongo
        .db(svc.db)
        .collection('users')
        .updateOne({ _id: data.userId }, { $set: { role: 'subscriber' } });
      tokens.push(data.accessToken);
    }
    const put = async (token, image) => {
      const form = new FormData();
      form.append('avatar', new Blob([image], { type: 'image/png' }), 'me.png');
      const res = await fetch(`${svc.url}/api/users/profile`, {
        method: 'PUT',
        headers: forwarded('identity', token),
        body: form,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`avatar upload answered ${res.status}`);
      return res.status;
    };
    const images = tokens.map(() => png(AVATAR_BYTES));
    return await measure(
      svc,
      () => put(tokens[0], png(1024 * 1024)),
      () => Promise.all(tokens.map((token, i) => put(token, images[i]))),
    );
  } finally {
    await mongo.close();
    await finish(svc);
    fs.rmSync(avatarDir, { recursive: true, force: true });
  }
}

/** A CSV of `rows` valid rows, about `rows / IMPORT_ROWS * IMPORT_TARGET_BYTES` long. */
function importCsv(seed, rows = IMPORT_ROWS) {
  const header = 'word,translation,definition,exampleSentence,exampleTranslation\n';
  const per = Math.floor((IMPORT_TARGET_BYTES - header.length) / IMPORT_ROWS);
  // five fields; the three long ones share what is left of the row (each within the 2000-char limit)
  const long = Math.min(2000, Math.floor((per - 40) / 3));
  const filler = (c) => c.repeat(long);
  const lines = [header];
  for (let i = 0; i < rows; i++)
    lines.push(`w${seed}_${i},t${i},${filler('d')},${filler('e')},${filler('x')}\n`);
  return Buffer.from(lines.join(''));
}

/** Two premium users importing a ~48 MiB CSV each, at the same time. */
async function importScenario(root, n, files) {
  const svc = await startService(root, 'flashcards', n);
  const { createAccessTokens } = require(path.join(ROOT, 'libs', 'auth', 'dist'));
  const tokens = createAccessTokens(JWT_SECRET);
  const post = async (file, i) => {
    const { token } = tokens.sign({
      sub: crypto.randomUUID(),
      email: `i${i}@example.com`,
      username: `imp${i}`,
      role: 'subscriber',
      subscription_status: 'active',
    });
    const form = new FormData();
    form.append('duplicateStrategy', 'create');
    form.append('file', new Blob([file], { type: 'text/csv' }), 'cards.csv');
    const res = await fetch(`${svc.url}/api/import/cards`, {
      method: 'POST',
      headers: forwarded('flashcards', token),
      body: form,
      signal: AbortSignal.timeout(300_000),
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`import answered ${res.status} ${JSON.stringify(body.error)}`);
    return body.data.imported;
  };
  try {
    return await measure(
      svc,
      () => post(importCsv('warm', 100), 9),
      () => Promise.all(files.map(post)),
    );
  } finally {
    await finish(svc);
  }
}

const mb = (bytes) => (bytes === undefined ? '     –' : (bytes / MiB).toFixed(0).padStart(6));

async function main() {
  const builds = [...(BASELINE ? [['baseline', path.resolve(BASELINE)]] : []), ['current', ROOT]];
  const files = [importCsv('a'), importCsv('b')];
  const probe = memoryCgroup(`${tag}_probe`);
  probe?.remove();
  console.log(
    `two concurrent uploads per scenario; avatars 2 × ${AVATAR_BYTES / MiB} MiB, imports 2 × ` +
      `${(files[0].length / MiB).toFixed(1)} MiB CSV (${IMPORT_ROWS} rows each); MiB; ` +
      (probe
        ? `each service in a memory cgroup limited to ${LIMIT_MIB} MiB`
        : 'no memory cgroup (not permitted here)') +
      '\n',
  );
  console.log('scenario           build     ready RSS  peak RSS  added  cgroup peak   time');
  const results = {};
  let n = 0;
  try {
    for (const [scenario, run] of [
      ['identity avatar', (root) => avatarScenario(root, n++)],
      ['flashcards import', (root) => importScenario(root, n++, files)],
    ]) {
      for (const [build, root] of builds) {
        const r = await run(root);
        results[`${scenario}/${build}`] = r;
        const line = `${scenario.padEnd(18)} ${build.padEnd(9)} ${mb(r.ready)}    `;
        console.log(
          r.killed
            ? `${line}killed (${r.killed}) after ${r.seconds.toFixed(1)} s: over the ${LIMIT_MIB} MiB limit`
            : `${line}${mb(r.peak)}  ${mb(r.peak - r.ready)}  ${mb(r.cgroupPeak)}     ${r.seconds.toFixed(1)} s`,
        );
      }
    }
  } finally {
    await require(path.join(ROOT, 'libs', 'testing', 'src', 'test-resources.js')).removeResources([tag]);
  }
  if (!BASELINE) return;
  console.log('\nratios baseline/current (higher = the current build uses less):');
  for (const scenario of ['identity avatar', 'flashcards import']) {
    const b = results[`${scenario}/baseline`];
    const c = results[`${scenario}/current`];
    if (b.killed || c.killed) {
      console.log(
        `${scenario.padEnd(18)} ${b.killed ? 'baseline killed' : ''} ${c.killed ? 'current killed' : ''}`,
      );
      continue;
    }
    console.log(
      `${scenario.padEnd(18)} peak RSS ${(b.peak / c.peak).toFixed(2)}×   added by the uploads ` +
        `${((b.peak - b.ready) / (c.peak - c.ready)).toFixed(2)}×`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
