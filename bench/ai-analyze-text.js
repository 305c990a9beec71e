#!/usr/bin/env node
// Throughput of POST /api/ai/analyze-text on the local provider (compromise tagging, SUBTLEX ranks,
// CMU syllables), for 1 KB and 10 KB English texts:
//   1. the use case itself, in this process (what one core does with no HTTP around it);
//   2. the real service over HTTP (auth + validation + envelope), started as its own process from
//      services/ai/dist, loaded with autocannon from this one.
// Needs `npm run build` and the local infrastructure (`npm run infra:up`) for part 2; `BENCH_HTTP=0`
// skips it. BENCH_SECONDS (default 5) and BENCH_CONNECTIONS (default 8) tune the HTTP part.
const path = require('node:path');
const { freePort, percentile, startProcess, writeResult } = require('./support');
const autocannon = require('autocannon');
const { createAccessTokens } = require('../libs/auth/dist');
const { analyzeText } = require('../services/ai/dist/domain/analyze-text.use-case');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const DEV_JWT_SECRET = 'lingua-local-development-secret-do-not-use-in-production';

// Varied English prose (news, narrative, instructions); texts are built by cycling its sentences.
const CORPUS =
  `The city council approved a new budget on Tuesday after months of debate. Critics argued that the
plan does little to address the housing shortage, while supporters praised its investment in public transport.
Maria had never seen the ocean before she turned twenty. When the train finally reached the coast, she pressed her
face against the window and laughed at the endless grey water. Before you begin, make sure the device is switched
off and unplugged. Remove the back panel carefully, and keep the screws in a safe place. Scientists have discovered
that some birds can navigate using the Earth's magnetic field, an ability that remains poorly understood. The
committee will publish its conclusions next spring, although several members have already expressed reservations.
Children who read every day tend to develop a richer vocabulary and a more confident writing style. He opened the
letter slowly, as if the words inside might escape. Nobody expected the small bakery on the corner to become the
most famous shop in town. Add the flour gradually and stir until the mixture is smooth. Unemployment fell for the
third consecutive month, according to figures released this morning.`
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/);

function textOf(bytes, offset = 0) {
  let out = '';
  for (let i = offset; Buffer.byteLength(out) < bytes; i++) out += `${CORPUS[i % CORPUS.length]} `;
  return out.slice(0, bytes).replace(/\s\S*$/, '.');
}

const pct = percentile;

function inProcess(label, bytes) {
  const texts = Array.from({ length: 16 }, (_, i) => textOf(bytes, i));
  for (let i = 0; i < 20; i++) analyzeText({ text: texts[i % texts.length] }); // warm-up (JIT, data load)
  const times = [];
  const end = Date.now() + DURATION_S * 1000;
  while (Date.now() < end) {
    const t = process.hrtime.bigint();
    analyzeText({ text: texts[times.length % texts.length] });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  const row = {
    scenario: `use case, ${label}`,
    'ops/s': Math.round((times.length / total) * 1000),
    'KB/s': Math.round(((times.length * bytes) / 1024 / total) * 1000),
    'p50 ms': pct(times, 50).toFixed(2),
    'p99 ms': pct(times, 99).toFixed(2),
  };
  return row;
}

async function startService() {
  const port = await freePort();
  return startProcess({
    script: path.join(__dirname, '../services/ai/dist/main.js'),
    env: {
      AI_HTTP_PORT: String(port),
      AI_GRPC_PORT: '0',
      AI_METRICS_PORT: '0',
      AI_MONGO_DB: 'lingua_ai_bench',
    },
    port,
    name: 'ai service',
    tries: 100,
  });
}

async function overHttp(url, label, bytes) {
  const { token } = createAccessTokens(DEV_JWT_SECRET).sign({
    sub: 'bench-user',
    email: 'bench@example.com',
    username: 'bench',
    role: 'user',
    subscription_status: 'inactive',
  });
  const body = JSON.stringify({ text: textOf(bytes) });
  const result = await autocannon({
    url: `${url}/api/ai/analyze-text`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
  return {
    scenario: `HTTP, ${label}`,
    'ops/s': Math.round(result.requests.average),
    'KB/s': Math.round((result.requests.average * bytes) / 1024),
    'p50 ms': result.latency.p50.toFixed(2),
    'p99 ms': result.latency.p99.toFixed(2),
  };
}

async function main() {
  const rows = [inProcess('1 KB', 1024), inProcess('10 KB', 10 * 1024)];
  if (process.env.BENCH_HTTP !== '0') {
    const svc = await startService();
    try {
      rows.push(await overHttp(svc.url, '1 KB', 1024), await overHttp(svc.url, '10 KB', 10 * 1024));
    } finally {
      svc.child.kill('SIGTERM');
    }
  }
  console.table(rows);
  await writeResult('ai-analyze-text', {
    seconds: DURATION_S,
    connections: CONNECTIONS,
    scenarios: rows.map((r) => ({
      scenario: r.scenario,
      perS: r['ops/s'],
      p50Ms: Number(r['p50 ms']),
      p99Ms: Number(r['p99 ms']),
    })),
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
