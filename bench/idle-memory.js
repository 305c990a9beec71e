#!/usr/bin/env node
// Resident memory of each deployable when started and idle, as the containers run them: dist/main.js
// of this tree (`npm run build` first), NODE_ENV=production, against the local FerretDB, NATS and
// Redis, one process at a time. RSS is sampled every 500 ms once /health/live answers, until it has
// moved less than 1 MiB over 3 s (at most 30 s): the AI service loads its language data after start.
// The figures sized the memory requests and limits in deploy/k8s and docker-compose.yml (deploy/README.md).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort } = require('./support');

const ROOT = path.resolve(__dirname, '..');
const tag = `bench_idle_${Date.now().toString(36)}`;
const MiB = 1024 * 1024;
const ASSERTION_KEY = crypto.randomBytes(32).toString('hex');
const { callerKeyEnv } = require('../libs/grpc/dist/call-identity');
const GRPC_KEYS = callerKeyEnv();
const rssOf = (pid) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function idleRss(name, dir, portEnv) {
  const port = await freePort();
  const SVC = name.toUpperCase();
  const child = spawn(process.execPath, [path.join(ROOT, dir, 'dist', 'main.js')], {
    env: {
      ...process.env,
      // subscriptions in production needs the stores' credentials (its verifiers refuse sandbox there);
      // development differs only in those verifiers
      NODE_ENV: name === 'subscriptions' ? 'development' : 'production',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET: crypto.randomBytes(32).toString('hex'),
      // what production requires: assertion keys (the gateway holds all five), non-development settings
      ...Object.fromEntries(
        ['IDENTITY', 'FLASHCARDS', 'SUBSCRIPTIONS', 'AI', 'NOTIFICATIONS'].map((s) => [
          `${s}_ASSERTION_KEY`,
          ASSERTION_KEY,
        ]),
      ),
      // and the gRPC callers' key pairs (libs/grpc dist, built with the services)
      ...GRPC_KEYS,
      IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.example',
      GOOGLE_AUDIENCES: 'lingua-bench.apps.googleusercontent.com',
      SMTP_HOST: 'smtp.lingua.example',
      MAIL_FROM: 'Lingua <no-reply@lingua.example>',
      EMAIL_LINK_KEY: crypto.randomBytes(32).toString('base64'),
      [portEnv]: String(port),
      [`${SVC}_GRPC_PORT`]: '0',
      [`${SVC}_MONGO_DB`]: `${tag}_${name}`,
      EVENTS_STREAM: `${tag}_${name}`.toUpperCase(),
      EVENTS_SUBJECT_PREFIX: `${tag}_${name}`,
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) return { name, error: `exited ${child.exitCode}` };
      if (Date.now() > deadline) return { name, error: 'not live within 60 s' };
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health/live`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    const samples = [rssOf(child.pid)];
    const settleBy = Date.now() + 30_000;
    while (Date.now() < settleBy) {
      await sleep(500);
      samples.push(rssOf(child.pid));
      const last = samples.slice(-7);
      if (last.length === 7 && Math.max(...last) - Math.min(...last) < MiB) break;
    }
    return { name, rss: samples.at(-1), max: Math.max(...samples) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

async function main() {
  const deployables = [
    ['identity', 'services/identity', 'IDENTITY_HTTP_PORT'],
    ['flashcards', 'services/flashcards', 'FLASHCARDS_HTTP_PORT'],
    ['subscriptions', 'services/subscriptions', 'SUBSCRIPTIONS_HTTP_PORT'],
    ['ai', 'services/ai', 'AI_HTTP_PORT'],
    ['notifications', 'services/notifications', 'NOTIFICATIONS_HTTP_PORT'],
    ['gateway', 'gateway', 'GATEWAY_PORT'],
  ];
  try {
    for (const [name, dir, portEnv] of deployables) {
      const r = await idleRss(name, dir, portEnv);
      console.log(
        r.error
          ? `${name.padEnd(14)} ${r.error}`
          : `${name.padEnd(14)} idle RSS ${(r.rss / MiB).toFixed(0).padStart(4)} MiB   (max while settling ${(r.max / MiB).toFixed(0)} MiB)`,
      );
    }
  } finally {
    await require(path.join(ROOT, 'libs', 'testing', 'src', 'test-resources.js')).removeResources([tag]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
