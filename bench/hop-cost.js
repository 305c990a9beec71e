#!/usr/bin/env node
// What one request costs the process that serves it when requests come spaced out (the journey's
// 50 calls/s wake each Node process of the stack 35-190 times a second) against back to back. Each
// server gets the same request at fixed rates (open loop), then with 50 in flight; its CPU per
// request comes from the scheduler's own clock (schedstat, ns), less what the process uses idle over
// the same time, and beside it how often its main thread was woken per request:
//   - a bare node:http server (bench/servers.js bare),
//   - a route served by @lingua/http (bench/servers.js service: express, helmet, request ids...),
//   - Redis PING (the redis-server of REDIS_URL: a small C server, for scale).
// All traffic goes to 127.0.0.1; every phase is time-bounded (a request unanswered in 5 s fails the run).
//   node bench/hop-cost.js            BENCH_HOP_RATES=20,50,200,1000  BENCH_SECONDS=8
const { once } = require('node:events');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const { Pool } = require('undici');
const {
  onCpuMsOf,
  openLoop,
  pidListeningOn,
  round,
  sleepsOf,
  startBenchServer,
  writeResult,
} = require('./support');

const RATES = (process.env.BENCH_HOP_RATES ?? '20,50,200,1000').split(',').filter(Boolean).map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
if (RATES.length === 0 || ![...RATES, SECONDS].every((n) => Number.isFinite(n) && n > 0))
  throw new Error(
    'BENCH_HOP_RATES must list rates per second and BENCH_SECONDS be a number of seconds, all > 0',
  );
const IN_FLIGHT = 50;
const TIMEOUT_MS = 5_000;
const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const REDIS_PORT = Number(REDIS.port || 6379);
// its process is measured: a local one, and the raw PINGs carry no AUTH
const REDIS_MEASURABLE = ['127.0.0.1', 'localhost', '[::1]'].includes(REDIS.hostname) && !REDIS.password;
if (!REDIS_MEASURABLE) console.error(`REDIS_URL is not a local Redis without a password: its row is skipped`);
const PONG = Buffer.from('+PONG\r\n');
const children = [];

/** A bench/servers.js server in its own process: { pid, send, dropConnections, close }; send() makes one request. */
async function httpServer(kind) {
  const { child, ready } = startBenchServer(kind);
  children.push(child);
  const url = await ready;
  const newPool = () =>
    new Pool(url, { connections: IN_FLIGHT, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  let pool = newPool();
  const send = async () => {
    const r = await pool.request({ path: '/api/flashcards/1', method: 'GET' });
    await r.body.dump();
  };
  // the warm-up's 50 keep-alive connections would time out (and wake the server) inside the idle window
  const dropConnections = async () => {
    await pool.close();
    pool = newPool();
  };
  const close = async () => {
    await pool.close();
    // an idle server still wakes now and then: gone before the next one is measured
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return { pid: child.pid, send, dropConnections, close };
}

/** One RESP connection sending PINGs: answers are counted by the byte, whatever the TCP reads hold. */
function pingConnection() {
  const socket = net.connect(REDIS_PORT, REDIS.hostname);
  socket.setNoDelay(true);
  const waiting = [];
  let partial = 0;
  const failAll = (err) => waiting.splice(0).forEach(({ reject }) => reject(err));
  socket.on('data', (chunk) => {
    for (const byte of chunk) {
      if (byte !== PONG[partial]) return void socket.destroy(new Error(`Redis answered other than PONG`));
      if (++partial === PONG.length) {
        partial = 0;
        waiting.shift()?.resolve();
      }
    }
  });
  socket.on('error', failAll).on('close', () => failAll(new Error('Redis closed the connection')));
  // a PING unanswered for TIMEOUT_MS fails the run rather than hanging it (an idle connection may idle)
  socket.setTimeout(TIMEOUT_MS, () => {
    if (waiting.length > 0) socket.destroy(new Error(`no PONG in ${TIMEOUT_MS} ms`));
  });
  const ping = () =>
    new Promise((resolve, reject) => {
      // closed while nothing waited (a Redis idle timeout): a write now would neither fail nor answer
      if (socket.destroyed) return void reject(new Error('Redis closed the connection'));
      waiting.push({ resolve, reject });
      socket.write('PING\r\n');
    });
  const connected = new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, ping, connected };
}

/** Redis over raw RESP on IN_FLIGHT connections, round robin. */
async function redisServer() {
  const pid = REDIS_MEASURABLE ? pidListeningOn(REDIS_PORT) : undefined;
  if (!pid) return undefined;
  const connections = Array.from({ length: IN_FLIGHT }, pingConnection);
  const close = async () => connections.forEach((c) => c.socket.destroy());
  try {
    await Promise.all(connections.map((c) => c.connected));
  } catch (err) {
    await close();
    throw err;
  }
  let next = 0;
  const send = () => connections[next++ % connections.length].ping();
  return { pid, send, close };
}

/** CPU (ms) and main-thread wake-ups of the process while `work` runs (or nothing, to price idling). */
async function over(pid, work) {
  const [cpu, sleeps, started] = [onCpuMsOf([pid]), sleepsOf(pid), performance.now()];
  if (cpu === null || sleeps === null) throw new Error(`hop-cost needs Linux's procfs (pid ${pid})`);
  const requests = await work();
  return {
    cpu: onCpuMsOf([pid]) - cpu,
    wakeups: sleepsOf(pid) - sleeps,
    seconds: (performance.now() - started) / 1000,
    requests,
  };
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

/** One server's row: idle use, then µs of CPU and wake-ups per request at each rate and saturated. */
async function measure(name, server) {
  try {
    const { send } = server;
    // warm the JIT, then let the process settle with no connection left to time out
    await saturate(send, 2);
    await server.dropConnections?.();
    await sleep(1000);
    const idle = await over(server.pid, () => sleep(SECONDS * 1000));
    const perRequest = (r) => ({
      cpuUs: ((r.cpu - (idle.cpu / idle.seconds) * r.seconds) * 1000) / r.requests,
      wakeups: (r.wakeups - (idle.wakeups / idle.seconds) * r.seconds) / r.requests,
    });
    const row = { name, idleMsPerS: idle.cpu / idle.seconds, idleWakeupsPerS: idle.wakeups / idle.seconds };
    row.rates = [];
    for (const rate of RATES) {
      const r = await over(server.pid, async () => {
        const { sent, settled } = await openLoop({ rate, seconds: SECONDS, fire: send });
        await settled;
        return sent;
      });
      row.rates.push(perRequest(r));
    }
    const s = await over(server.pid, () => saturate(send, SECONDS));
    row.saturated = { ...perRequest(s), rate: s.requests / s.seconds };
    return row;
  } finally {
    await server.close();
  }
}

async function main() {
  const rows = [];
  rows.push(await measure('bare node:http', await httpServer('bare')));
  rows.push(await measure('@lingua/http service', await httpServer('service')));
  const redis = await redisServer();
  if (redis) rows.push(await measure('redis-server PING', redis));
  else if (REDIS_MEASURABLE) console.error(`no Redis listening at ${REDIS.host}: its row is skipped`);

  console.log(
    `\nPer request to the serving process, ${SECONDS} s per rate (open loop), then ${IN_FLIGHT} in flight; its idle use subtracted.`,
  );
  console.log('µs of CPU (schedstat) / wake-ups of its main thread (voluntary context switches)\n');
  const cell = (v) => `${v.cpuUs.toFixed(0)} / ${v.wakeups.toFixed(2)}`.padStart(14);
  console.log(
    `${'server'.padEnd(22)} ${'idle ms/s, wake-ups/s'.padStart(22)} ${RATES.map((r) => `${r}/s`.padStart(14)).join('')} ${'in flight'.padStart(14)}  (req/s)   CPU ${RATES.map((r) => `${r}/s`).join(', ')} ÷ in flight`,
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(22)} ${`${r.idleMsPerS.toFixed(1)}, ${r.idleWakeupsPerS.toFixed(1)}`.padStart(22)} ${r.rates.map(cell).join('')} ${cell(r.saturated)}  (${Math.round(r.saturated.rate)})   ${r.rates.map((v) => `${(v.cpuUs / r.saturated.cpuUs).toFixed(1)}×`).join(', ')}`,
    );
  const figures = (v) => ({ cpuUs: round(v.cpuUs, 0), wakeups: round(v.wakeups, 2) });
  await writeResult('hop-cost', {
    seconds: SECONDS,
    rates: RATES,
    inFlight: IN_FLIGHT,
    servers: rows.map((r) => ({
      name: r.name,
      idleMsPerS: round(r.idleMsPerS, 1),
      idleWakeupsPerS: round(r.idleWakeupsPerS, 1),
      rates: r.rates.map((v, i) => ({ rate: RATES[i], ...figures(v) })),
      inFlight: { ...figures(r.saturated), reqPerS: Math.round(r.saturated.rate) },
    })),
  });
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    children.forEach((c) => c.kill('SIGTERM'));
    process.exit(); // sockets of a failed phase must not keep the run alive
  });
