#!/usr/bin/env node
// What the gRPC call identity (docs/adr/0018-grpc-call-identity.md) costs, side by side in one run:
// unary calls/s over loopback with the caller's assertion signed and the server checking it, against
// the same calls without (plain @grpc/grpc-js both ways, so only the identity differs), in
// interleaved rounds; then the CPU of each step: the reused assertion, a remembered verification,
// and the Ed25519 sign and verify paid once per 30 s per caller and server. Needs `npm run build`.
const { generateKeyPairSync, sign, verify } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const grpc = require('@grpc/grpc-js');
const { loadPackage } = require('../libs/proto/dist');
const {
  CALL_ASSERTION_KEY,
  createCallVerifier,
  devCallSigner,
  devTrustedCallers,
} = require('../libs/grpc/dist');
const { round, writeResult } = require('./support');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const N = Number(process.env.BENCH_ITERATIONS ?? 100_000);

const { FlashcardsService } = loadPackage().lingua.flashcards.v1;
const STATS = { total_cards: 12, due_cards: 3, mastered_cards: 4, favorite_cards: 1 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A plain grpc-js server for GetCardStats; `check` runs first on each call when given. */
async function startServer(check) {
  const server = new grpc.Server();
  server.addService(FlashcardsService.service, {
    GetCardStats(call, callback) {
      if (check) {
        try {
          check(call.metadata);
        } catch (err) {
          return callback({ code: grpc.status.UNAUTHENTICATED, details: err.message });
        }
      }
      callback(null, STATS);
    },
  });
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, address: `127.0.0.1:${port}` };
}

/**
 * Calls/s with IN_FLIGHT calls outstanding for SECONDS, and this process's CPU µs per call (client and
 * server both live here; steadier than calls/s on a busy machine); `metadata()` builds each call's.
 */
async function callsPerSecond(address, metadata) {
  const client = new FlashcardsService(address, grpc.credentials.createInsecure());
  const once = () =>
    new Promise((resolve, reject) =>
      client.GetCardStats({ user_id: 'u1' }, metadata(), (err) => (err ? reject(err) : resolve())),
    );
  for (let i = 0; i < 2_000; i++) await once(); // warm up (connection, JIT)
  let calls = 0;
  const until = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      await once();
      calls++;
    }
  };
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const { user, system } = process.cpuUsage(cpu0);
  const rate = calls / ((performance.now() - started) / 1000);
  client.close();
  return { rate, cpuUs: (user + system) / calls };
}

/** Median µs per operation over 3 runs of N. */
function micro(op) {
  for (let i = 0; i < 5_000; i++) op(i);
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) op(i);
    runs.push(Number(process.hrtime.bigint() - t) / 1000 / N);
  }
  return median(runs);
}

async function main() {
  const signer = devCallSigner('identity');
  const verifier = createCallVerifier('flashcards', devTrustedCallers(['identity']));
  const allowed = new Set(['identity']);
  const plain = await startServer();
  const checked = await startServer((md) => {
    const caller = verifier.verify(md.get(CALL_ASSERTION_KEY)[0]);
    if (!allowed.has(caller)) throw new Error('not allowed');
  });
  const bare = () => new grpc.Metadata();
  const signed = () => {
    const md = new grpc.Metadata();
    md.set(CALL_ASSERTION_KEY, signer.assertionFor('flashcards'));
    return md;
  };

  const without = [];
  const withIdentity = [];
  for (let r = 0; r < ROUNDS; r++) {
    // interleaved, the order alternating, so drift in the machine's load hits both alike
    const pair = [
      async () => without.push(await callsPerSecond(plain.address, bare)),
      async () => withIdentity.push(await callsPerSecond(checked.address, signed)),
    ];
    for (const run of r % 2 ? pair.reverse() : pair) await run();
  }
  plain.server.forceShutdown();
  checked.server.forceShutdown();

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const payload = Buffer.from('v1.eyJpc3MiOiJpZGVudGl0eSIsImF1ZCI6ImZsYXNoY2FyZHMiLCJleHAiOjE3MDAwMDAwMDB9');
  const signature = sign(null, payload, privateKey);
  const assertion = signer.assertionFor('flashcards');
  const cpu = {
    'caller: reused assertion (the common case)': micro(() => signer.assertionFor('flashcards')),
    'server: remembered verification': micro(() => verifier.verify(assertion)),
    'caller: Ed25519 sign (once per 30 s per server)': micro(() => sign(null, payload, privateKey)),
    'server: Ed25519 verify (once per assertion)': micro(() => verify(null, payload, publicKey, signature)),
  };

  const w = median(without.map((x) => x.rate));
  const c = median(withIdentity.map((x) => x.rate));
  const wCpu = median(without.map((x) => x.cpuUs));
  const cCpu = median(withIdentity.map((x) => x.cpuUs));
  console.log(
    `gRPC unary GetCardStats over loopback, ${IN_FLIGHT} in flight, median of ${ROUNDS} × ${SECONDS} s:`,
  );
  const row = (name, rate, cpuUs) =>
    console.log(
      `  ${name.padEnd(22)} ${rate.toFixed(0).padStart(7)} calls/s ${cpuUs.toFixed(1).padStart(7)} µs CPU/call`,
    );
  row('without call identity', w, wCpu);
  row('with call identity', c, cCpu);
  console.log(
    `  ratio with/without      calls/s ${(c / w).toFixed(3)}, CPU per call ${(cCpu / wCpu).toFixed(3)}`,
  );
  console.log(
    `  (load average ${require('node:os').loadavg()[0].toFixed(1)} on ${require('node:os').availableParallelism()} CPUs)`,
  );
  console.log(`CPU per operation, µs (median of 3 × ${N}):`);
  for (const [name, us] of Object.entries(cpu))
    console.log(`  ${name.padEnd(48)} ${us.toFixed(2).padStart(7)} µs`);
  await writeResult('grpc-identity', {
    inFlight: IN_FLIGHT,
    rounds: ROUNDS,
    seconds: SECONDS,
    callsPerS: { with: Math.round(c), without: Math.round(w) },
    cpuUsPerCall: { with: round(cCpu, 1), without: round(wCpu, 1) },
    steps: Object.entries(cpu).map(([step, us]) => ({ step, us: round(us, 2) })),
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
