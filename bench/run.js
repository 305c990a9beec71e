#!/usr/bin/env node
// Side-by-side benchmark of the request path, in one run on this machine: a bare node:http server,
// a service built with @lingua/http called directly, and the same service behind our gateway,
// each server in its own process (bench/servers.js), the load generator in this one.
// Prints req/s and latency percentiles per scenario and the ratios between them. Needs `npm run build`
// and a reachable Redis (the gateway's health uses it). All load goes to 127.0.0.1 and is time-bounded.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const autocannon = require('autocannon');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const children = [];

/** Starts one server process and resolves with its URL. */
function server(kind, upstream) {
  const child = spawn(process.execPath, [path.join(__dirname, 'servers.js'), kind, upstream ?? ''], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    readline
      .createInterface({ input: child.stdout })
      .on('line', (line) => line.startsWith('ready ') && resolve(line.slice(6)));
  });
}

function run(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S }, (err, r) =>
      err ? reject(err) : resolve(r),
    );
  });
}

async function main() {
  const bare = await server('bare');
  const service = await server('service');
  const gateway = await server('gateway', service);
  const scenarios = [
    ['bare node:http', `${bare}/api/flashcards/1`],
    ['service direct (@lingua/http)', `${service}/api/flashcards/1`],
    ['gateway → service', `${gateway}/api/flashcards/1`],
  ];
  const results = {};
  for (const [name, url] of scenarios) {
    await run(url); // warm-up, discarded
    const r = await run(url);
    results[name] = r;
    if (r.non2xx || r.errors) console.error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION_S} s per scenario, after a ${DURATION_S} s warm-up\n`,
  );
  console.log('scenario                         req/s     p50  p97.5    p99 (ms)');
  for (const [name, r] of Object.entries(results))
    console.log(
      `${name.padEnd(30)} ${String(Math.round(r.requests.average)).padStart(7)} ${String(r.latency.p50).padStart(7)} ${String(r.latency.p97_5).padStart(6)} ${String(r.latency.p99).padStart(6)}`,
    );
  const rps = (n) => results[n].requests.average;
  console.log(
    `\nratio service/bare:    ${(rps('service direct (@lingua/http)') / rps('bare node:http')).toFixed(2)}`,
  );
  console.log(
    `ratio gateway/service: ${(rps('gateway → service') / rps('service direct (@lingua/http)')).toFixed(2)}`,
  );
  console.log(
    `spec target: 95 % within 200 ms; gateway p97.5 here: ${results['gateway → service'].latency.p97_5} ms`,
  );
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => children.forEach((c) => c.kill('SIGTERM')));
