#!/usr/bin/env node
// Side-by-side benchmark of the request path, in one run on this machine:
//   1. a bare node:http server returning the same JSON,
//   2. a service built with @lingua/http called directly,
//   3. that endpoint through our gateway with a bearer token (verify, blacklist mirror, leased rate limit),
//      with the access log sampled at 1 % (the default path) and, for comparison, logging every request,
//      and without a token (guest: no verification, still rate limited) to price token verification,
//      and through a minimal node:http + undici proxy with none of the gateway's features (the floor),
//   4. that endpoint through nginx (Debian) as a reverse-proxy peer (1 worker, upstream keep-alive),
//   5. a JSON write (POST, a card's body) to the service, through the gateway (both of its paths) and the floor.
// Each server runs in its own process (bench/servers.js, nginx), the load generator in this one.
// Prints req/s and latency percentiles per scenario and the ratios. Needs `npm run build` and a
// reachable Redis. All load goes to 127.0.0.1 and is time-bounded.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const autocannon = require('autocannon');
const { createAccessTokens } = require('../libs/auth/dist');
const {
  cpuMsOf,
  fixedRate,
  freePort,
  median,
  percentile,
  runQueueMsOf,
  startBenchServer,
  writeResult,
} = require('./support');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The route every scenario calls, and the names both phases compare. */
const P = '/api/flashcards/1';
const SVC = '2 service direct';
const GW = '3 gateway + token (log 1%)';
const FLOOR = '3e minimal node proxy (floor)';
/** The JSON write of the 5 scenarios: a new card, as the app sends it. */
const POST = {
  method: 'POST',
  path: '/api/flashcards',
  body: JSON.stringify({
    word: 'laufen',
    translation: 'to run',
    example: 'Ich laufe jeden Morgen im Park.',
    tags: ['verbs', 'A1'],
    deckId: '6f1c2b7e9a4d3c2b1a0f9e8d',
  }),
};
const json = { 'content-type': 'application/json' };
const SVC_POST = '5 JSON POST: service direct';
const GW_POST = '5a JSON POST: gateway + token';
const EXPRESS_POST = '5d JSON POST: gateway, express path';
const FLOOR_POST = '5e JSON POST: the floor';
/** An answer slower than this marks its 100 ms slice of an open-loop window as slow. */
const SLOW_MS = 5;
/** Offered loads (req/s) of the open-loop phase; empty to skip it. */
const FIXED_RATES = (process.env.BENCH_FIXED_RATES ?? '1000,3000').split(',').filter(Boolean).map(Number);
const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
const DEV_JWT_SECRET = 'lingua-local-development-secret-do-not-use-in-production';
const children = [];
/** Server URL → the pids doing its work (for CPU per request). */
const pidsOf = new Map();

/** utime + stime of the processes, in µs. */
const cpuMicros = (pids) => (cpuMsOf(pids) ?? 0) * 1000;

/** Starts one server process (bench/servers.js) and resolves with its URL. */
async function server(kind, ...args) {
  const { child, ready } = startBenchServer(kind, args);
  children.push(child);
  const url = await ready;
  pidsOf.set(url, [child.pid]);
  return url;
}

/** nginx in the foreground from a generated config in a temp dir, as the current user. */
async function nginx(upstream) {
  if (!fs.existsSync(NGINX)) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lingua-bench-nginx-'));
  const port = await freePort();
  const up = new URL(upstream);
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream svc { server ${up.host}; keepalive 64; }
  # nginx closes a client connection after 1000 requests by default, which autocannon counts as errors
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://svc;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`,
  );
  const child = spawn(
    NGINX,
    ['-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-p', dir],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/api/flashcards/1`)).ok) {
        const workers = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8');
        pidsOf.set(url, [child.pid, ...workers.trim().split(/\s+/).filter(Boolean).map(Number)]);
        return url;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('nginx did not start');
}

function run(url, headers, request) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: DURATION_S,
        headers,
        ...(request && { method: request.method, body: request.body }),
      },
      (err, r) => (err ? reject(err) : resolve(r)),
    );
  });
}

async function main() {
  const token = createAccessTokens(process.env.JWT_SECRET ?? DEV_JWT_SECRET).sign(
    {
      sub: '0b9c4f1e-2d2a-4b8e-9a57-5f0f1f6c7a11',
      email: 'bench@example.com',
      username: 'bench',
      role: 'user',
      subscription_status: 'inactive',
    },
    24 * 3600,
  ).token;
  const auth = { authorization: `Bearer ${token}` };
  const bare = await server('bare');
  const service = await server('service');
  const gateway = await server('gateway', service, '0.01');
  const gatewayFullLog = await server('gateway', service, '1');
  // the same gateway with every request on the express stack (GATEWAY_FAST_PATH=false): before/after in one run
  const gatewayExpress = await server('gateway', service, '0.01', 'false');
  const floor = await server('minimal-proxy', service);
  const proxy = await nginx(service);
  // [name, front server, headers, request (GET P when absent)]
  const scenarios = [
    ['1 bare node:http', bare],
    [SVC, service],
    [GW, gateway, auth],
    ['3b gateway + token (log all)', gatewayFullLog, auth],
    ['3c gateway, guest (no token)', gateway],
    ['3d gateway + token, express path', gatewayExpress, auth],
    [FLOOR, floor, auth],
    ...(proxy ? [['4 nginx → service', proxy]] : []),
    [SVC_POST, service, json, POST],
    [GW_POST, gateway, { ...auth, ...json }, POST],
    [EXPRESS_POST, gatewayExpress, { ...auth, ...json }, POST],
    [FLOOR_POST, floor, { ...auth, ...json }, POST],
  ];
  // Rounds interleave the scenarios (round 1 runs each once, then round 2...), so a burst of load
  // from elsewhere on the machine hits every scenario alike; medians over the rounds are printed.
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const results = {};
    for (const [name, front, headers, request] of scenarios) {
      const url = `${front}${request?.path ?? P}`;
      if (round === 1) await run(url, headers, request); // warm-up, discarded
      const frontPids = pidsOf.get(front);
      const servicePids = front === service ? [] : pidsOf.get(service);
      const before = [cpuMicros(frontPids), cpuMicros(servicePids)];
      const r = await run(url, headers, request);
      const done = r.requests.total || 1;
      r.frontCpu = (cpuMicros(frontPids) - before[0]) / done;
      r.serviceCpu = front === service ? r.frontCpu : (cpuMicros(servicePids) - before[1]) / done;
      results[name] = r;
      if (r.non2xx || r.errors) console.error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
    rounds.push(results);
  }
  const med = (name, pick) => median(rounds.map((r) => pick(r[name])));
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION_S} s per scenario and round, ${ROUNDS} interleaved rounds (medians), after a ${DURATION_S} s warm-up\n`,
  );
  console.log(
    'scenario                             req/s     p50    p95    p99 (ms)   CPU µs/req: front  service',
  );
  for (const [name] of scenarios)
    console.log(
      `${name.padEnd(34)} ${String(Math.round(med(name, (r) => r.requests.average))).padStart(7)} ${String(med(name, (r) => r.latency.p50)).padStart(7)} ${String(med(name, (r) => r.latency.p95 ?? r.latency.p97_5)).padStart(6)} ${String(med(name, (r) => r.latency.p99)).padStart(6)}  ${String(Math.round(med(name, (r) => r.frontCpu))).padStart(19)} ${String(Math.round(med(name, (r) => r.serviceCpu))).padStart(8)}`,
    );
  // ratios are taken within each round, then the median over the rounds
  const perRound = (f) => rounds.map(f);
  const rps = (r, n) => r[n].requests.average;
  const show = (label, values, fmt) => {
    console.log(`${label.padEnd(46)} ${fmt(median(values))}   (rounds: ${values.map(fmt).join(', ')})`);
    // "… (target <= 1.15)": the target goes in its own column of the result
    const target = /\s*\(target ([^)]+)\)/.exec(label);
    measures.push({
      measure: target ? label.replace(target[0], '') : label,
      value: fmt(median(values)),
      rounds: values.map(fmt),
      ...(target && { target: target[1].replace('<=', '≤').replace('>=', '≥') }),
    });
  };
  const x2 = (v) => v.toFixed(2);
  const pct = (v) => `${(v * 100).toFixed(1)} %`;
  console.log('');
  show(
    'ratio service/bare',
    perRound((r) => rps(r, SVC) / rps(r, '1 bare node:http')),
    x2,
  );
  show(
    'ratio gateway+token/service (target >= 0.6)',
    perRound((r) => rps(r, GW) / rps(r, SVC)),
    x2,
  );
  show(
    'ratio minimal node proxy/service (the floor)',
    perRound((r) => rps(r, FLOOR) / rps(r, SVC)),
    x2,
  );
  show(
    'ratio gateway+token/minimal node proxy',
    perRound((r) => rps(r, GW) / rps(r, FLOOR)),
    x2,
  );
  if (proxy)
    show(
      'ratio nginx/service',
      perRound((r) => rps(r, '4 nginx → service') / rps(r, SVC)),
      x2,
    );
  show(
    'ratio express path/service (before the fast path)',
    perRound((r) => rps(r, '3d gateway + token, express path') / rps(r, SVC)),
    x2,
  );
  show(
    'token verification cost (target < 10 %)',
    perRound((r) => 1 - rps(r, GW) / rps(r, '3c gateway, guest (no token)')),
    pct,
  );
  show(
    'cost of logging every request',
    perRound((r) => 1 - rps(r, '3b gateway + token (log all)') / rps(r, GW)),
    pct,
  );
  // CPU per request is steadier than req/s on a shared machine: the gateway's own cost against the service's
  show(
    'CPU per request gateway+token/service',
    perRound((r) => r[GW].frontCpu / r[GW].serviceCpu),
    x2,
  );
  // issue 23's measure of the gateway's own cost: its features on top of the same building blocks
  show(
    'CPU per request gateway+token/the floor (target <= 1.15)',
    perRound((r) => r[GW].frontCpu / r[FLOOR].frontCpu),
    x2,
  );
  show(
    'CPU per request gateway+token/the floor, JSON POST (target <= 1.15)',
    perRound((r) => r[GW_POST].frontCpu / r[FLOOR_POST].frontCpu),
    x2,
  );
  show(
    'CPU per request JSON POST, express path/fast path',
    perRound((r) => r[EXPRESS_POST].frontCpu / r[GW_POST].frontCpu),
    x2,
  );
  show(
    'CPU per request express path/service',
    perRound(
      (r) =>
        r['3d gateway + token, express path'].frontCpu / r['3d gateway + token, express path'].serviceCpu,
    ),
    x2,
  );
  show(
    'CPU per request guest/token (1 - ratio)',
    perRound((r) => 1 - r['3c gateway, guest (no token)'].frontCpu / r[GW].frontCpu),
    pct,
  );
  show(
    'gateway added p99, ms (target < 3)',
    perRound((r) => r[GW].latency.p99 - r[SVC].latency.p99),
    (v) => v.toFixed(1),
  );
  show(
    'express path added p99, ms',
    perRound((r) => r['3d gateway + token, express path'].latency.p99 - r[SVC].latency.p99),
    (v) => v.toFixed(1),
  );
  if (FIXED_RATES.length) await openLoop({ service, gateway, floor, proxy, auth });
  await writeResult('gateway', {
    connections: CONNECTIONS,
    secondsPerRound: DURATION_S,
    rounds: ROUNDS,
    fixedRates: FIXED_RATES,
    scenarios: scenarios.map(([name]) => ({
      scenario: name,
      reqPerS: Math.round(med(name, (r) => r.requests.average)),
      p99Ms: med(name, (r) => r.latency.p99),
      frontCpuUs: name === SVC || name === SVC_POST ? null : Math.round(med(name, (r) => r.frontCpu)),
      serviceCpuUs: Math.round(med(name, (r) => r.serviceCpu)),
    })),
    measures,
  });
}

/** The ratios and added latencies the run printed, for bench/results/gateway.json. */
const measures = [];

/**
 * At saturation (above) every scenario queues 50 requests and its latency is 50 / throughput
 * (Little's law): the added p99 there restates the throughput ratio. The latency a proxy adds is
 * measured at a fixed offered load that all of them sustain: open loop (bench/support.js fixedRate),
 * 50 connections, interleaved rounds, thousands of samples per round and rate.
 */
async function openLoop({ service, gateway, floor, proxy, auth }) {
  const scenarios = [
    [SVC, service],
    [GW, gateway, auth],
    [FLOOR, floor, auth],
    ...(proxy ? [['4 nginx → service', proxy]] : []),
  ];
  console.log(
    `\nOpen loop: fixed offered load, ${CONNECTIONS} connections, ${DURATION_S} s per scenario and round, ${ROUNDS} interleaved rounds (medians)\n`,
  );
  console.log(
    'rate   scenario                             p50     p90     p99 (ms)   CPU wait %: front service load   added p50 / p99 vs service',
  );
  for (const rate of FIXED_RATES) {
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const results = {};
      for (const [name, front, headers] of scenarios) {
        const url = `${front}${P}`;
        // a warm-up before every window: a node server that sat idle while the others ran lets V8
        // shrink its young generation, and the first seconds of load regrow it (page faults, 15-170 ms p99)
        await fixedRate({ url, headers, rate, seconds: 2, connections: CONNECTIONS });
        const waiting = [pidsOf.get(front), front === service ? [] : pidsOf.get(service), [process.pid]];
        const waitedBefore = waiting.map((pids) => runQueueMsOf(pids) ?? 0);
        const started = performance.now();
        const r = await fixedRate({ url, headers, rate, seconds: DURATION_S, connections: CONNECTIONS });
        const wall = performance.now() - started;
        if (r.errors) console.error(`${name} at ${rate}/s: ${r.errors} errors`);
        results[name] = {
          p50: percentile(r.latencies, 50),
          p90: percentile(r.latencies, 90),
          p99: percentile(r.latencies, 99),
          slowest: r.slowest,
          ownDelayMaxMs: r.ownDelayMaxMs,
          // share of the window the processes' threads spent runnable but without a CPU
          waits: waiting.map((pids, i) => ((runQueueMsOf(pids) ?? 0) - waitedBefore[i]) / wall),
        };
      }
      rounds.push(results);
    }
    const med = (name, k) => median(rounds.map((r) => r[name][k]));
    const waited = (name, i) => `${(median(rounds.map((r) => r[name].waits[i])) * 100).toFixed(0)}`;
    const added = (name, k) => median(rounds.map((r) => r[name][k] - r[SVC][k]));
    for (const [name] of scenarios.filter(([n]) => n !== SVC))
      measures.push({
        measure: `${name}: added p50 / p99 at ${rate} req/s open loop, ms`,
        value: `${added(name, 'p50').toFixed(2)} / ${added(name, 'p99').toFixed(2)}`,
        rounds: rounds.map((r) => (r[name].p99 - r[SVC].p99).toFixed(2)),
        // issue 39's target for the gateway's tail at 3,000 req/s
        ...(name === GW && rate === 3000 && { target: 'p99 < 4' }),
      });
    for (const [name] of scenarios) {
      const extra =
        name === SVC
          ? ''
          : `${added(name, 'p50').toFixed(2).padStart(10)} / ${added(name, 'p99').toFixed(2)}   (p99 rounds: ${rounds.map((r) => (r[name].p99 - r[SVC].p99).toFixed(2)).join(', ')})`;
      console.log(
        `${String(rate).padEnd(6)} ${name.padEnd(34)} ${med(name, 'p50').toFixed(2).padStart(6)} ${med(name, 'p90').toFixed(2).padStart(7)} ${med(name, 'p99').toFixed(2).padStart(7)}   ${waited(name, 0).padStart(15)} ${(name === SVC ? '' : waited(name, 1)).padStart(7)} ${waited(name, 2).padStart(4)}   ${extra}`,
      );
    }
    // where each window's tail came from: slow slices beside a short stall of the generator's own loop
    // are the proxy's (or the service's: compare its own window); a generator stall as long as them is the generator's
    console.log(
      `\n${rate}/s, where the slow answers fell (slowest answer per 100 ms slice of the window, slices over ${SLOW_MS} ms):`,
    );
    rounds.forEach((results, i) => {
      for (const [name] of scenarios) {
        const { slowest, ownDelayMaxMs, p99 } = results[name];
        const slow = slowest
          .map((ms, slice) => [slice, ms])
          .filter(([, ms]) => ms > SLOW_MS)
          .map(([slice, ms]) => `${(slice / 10).toFixed(1)} s ${ms.toFixed(0)}`);
        console.log(
          `  round ${i + 1} ${name.padEnd(34)} p99 ${p99.toFixed(2).padStart(6)} ms, generator's loop delay max ${ownDelayMaxMs.toFixed(0).padStart(3)} ms; ${slow.length ? slow.slice(0, 12).join(', ') + (slow.length > 12 ? ` … (${slow.length} slices)` : '') : 'none'}`,
        );
      }
    });
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => children.forEach((c) => c.kill('SIGTERM')));
