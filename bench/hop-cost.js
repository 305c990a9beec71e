#!/usr/bin/env node
// What one request costs the process that serves it when requests come alone (a few a second, as
// in the journey's 50 calls/s spread over a dozen processes) against when they come back to back.
// Each server gets the same request at fixed rates (open loop) and then saturated (50 in flight),
// and its CPU per request is read from the scheduler's own clock (schedstat, ns), minus what the
// process spends idle over the same time:
//   - a bare node:http server (bench/servers.js bare),
//   - a route served by @lingua/http (bench/servers.js service: express, helmet, request ids...),
//   - Redis PING (the redis-server of REDIS_URL: a small C server, for scale).
// A call of the journey wakes 4-6 processes, several of them more than once (each database round
// trip wakes the service, FerretDB and a PostgreSQL backend): the ratio printed last is what each of
// those wake-ups costs at the journey's rates against what the saturated benches measure.
// All traffic goes to 127.0.0.1 and every phase is time-bounded.
//   node bench/hop-cost.js            BENCH_HOP_RATES=20,50,200,1000  BENCH_SECONDS=8
const net = require('node:net');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { Pool } = require('undici');
const { onCpuMsOf, openLoop, pidListeningOn } = require('./support');

const RATES = (process.env.BENCH_HOP_RATES ?? '20,50,200,1000').split(',').filter(Boolean).map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const IN_FLIGHT = 50;
const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const children = [];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A bench/servers.js server in its own process: { pid, send } where send() makes one request. */
async function httpServer(kind) {
  const child = spawn(process.execPath, [path.join(__dirname, 'servers.js'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve(line.slice(6));
    });
  });
  const pool = new Pool(url, { connections: IN_FLIGHT });
  const send = async () => {
    const r = await pool.request({ path: '/api/flashcards/1', method: 'GET' });
    await r.body.dump();
  };
  return { pid: child.pid, send, close: () => pool.close() };
}

/** Redis over raw RESP on a few connections: one PING per send(), answered in order per connection. */
async function redisServer() {
  const pid = pidListeningOn(Number(REDIS.port || 6379));
  if (!pid) return undefined;
  if (REDIS.password) throw new Error('hop-cost: a Redis with a password is not supported');
  const connections = await Promise.all(
    Array.from({ length: IN_FLIGHT }, () => {
      const socket = net.connect(Number(REDIS.port || 6379), REDIS.hostname);
      const waiting = [];
      socket.on('data', (chunk) => {
        // each answer is "+PONG\r\n"
        for (let i = 0; i < chunk.length; i += 7) waiting.shift()?.();
      });
      return new Promise((resolve, reject) =>
        socket.once('connect', () => resolve({ socket, waiting })).once('error', reject),
      );
    }),
  );
  let next = 0;
  const send = () => {
    const c = connections[next++ % connections.length];
    return new Promise((resolve) => {
      c.waiting.push(resolve);
      c.socket.write('PING\r\n');
    });
  };
  return { pid, send, close: () => connections.forEach((c) => c.socket.end()) };
}

/** CPU ms the process used over `ms`, doing `work` (or nothing). */
async function cpuOver(pid, work) {
  const before = onCpuMsOf([pid]);
  const started = performance.now();
  await work();
  return { cpu: onCpuMsOf([pid]) - before, wall: performance.now() - started };
}

/** `IN_FLIGHT` callers, each sending its next request when the last one is answered, for `seconds`. */
async function saturate(send, seconds) {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < until) {
        await send();
        done++;
      }
    }),
  );
  return done;
}

async function measure(name, server) {
  // warm the JIT and the connections, then let the process settle
  await saturate(server.send, 2);
  await sleep(1000);
  const idle = await cpuOver(server.pid, () => sleep(SECONDS * 1000));
  const idleMsPerS = idle.cpu / (idle.wall / 1000);
  const row = { name, idleMsPerS, rates: [] };
  for (const rate of RATES) {
    const r = await cpuOver(
      server.pid,
      async () => (await openLoop({ rate, seconds: SECONDS, fire: server.send })).settled,
    );
    const requests = Math.round(rate * SECONDS);
    row.rates.push(((r.cpu - idleMsPerS * (r.wall / 1000)) * 1000) / requests);
  }
  let done = 0;
  const s = await cpuOver(server.pid, async () => (done = await saturate(server.send, SECONDS)));
  row.saturated = ((s.cpu - idleMsPerS * (s.wall / 1000)) * 1000) / done;
  row.saturatedRate = done / (s.wall / 1000);
  await server.close();
  return row;
}

async function main() {
  const rows = [];
  rows.push(await measure('bare node:http', await httpServer('bare')));
  rows.push(await measure('@lingua/http service', await httpServer('service')));
  const redis = await redisServer();
  if (redis) rows.push(await measure('redis-server PING', redis));
  else console.error(`no Redis listening at ${REDIS.host}: its row is skipped`);

  console.log(
    `\nCPU per request of the serving process (µs, schedstat, its idle CPU subtracted), ${SECONDS} s per rate, open loop; then ${IN_FLIGHT} in flight\n`,
  );
  const head = RATES.map((r) => `${r}/s`.padStart(8)).join('');
  console.log(
    `${'server'.padEnd(24)} ${'idle ms/s'.padStart(9)} ${head} ${'saturated'.padStart(10)} (req/s)   ${RATES[0]}/s ÷ saturated`,
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(24)} ${r.idleMsPerS.toFixed(1).padStart(9)} ${r.rates.map((v) => v.toFixed(0).padStart(8)).join('')} ${r.saturated.toFixed(1).padStart(10)} (${Math.round(r.saturatedRate)})   ${(r.rates[0] / r.saturated).toFixed(1)}×`,
    );
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => children.forEach((c) => c.kill('SIGTERM')));
