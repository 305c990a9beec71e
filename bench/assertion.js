#!/usr/bin/env node
// What the internal assertion (docs/adr/0001-internal-assertions.md) adds to a request's CPU, side by
// side in one run: the gateway's sign (a client repeating its token: the reused assertion; a token
// seen for the first time: an HMAC), a service's verify (remembered and first sight), and an Ed25519
// signature (the asymmetric alternative) for comparison. Budget: under 10 µs per request at the
// gateway. Needs `npm run build`. CPU only, no network.
const { generateKeyPairSync, sign } = require('node:crypto');
const {
  ASSERTION_AUDIENCES,
  createAccessTokens,
  createAssertionSigner,
  createAssertionVerifier,
} = require('../libs/auth/dist');

const N = Number(process.env.BENCH_ITERATIONS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BUDGET_US = 10;

const keys = Object.fromEntries(
  ASSERTION_AUDIENCES.map((a) => [a, `${a}-bench-key-0123456789abcdef0123456789`]),
);
const tokens = createAccessTokens('bench-secret-0123456789abcdef0123456789');
const user = (i) => ({
  sub: `user-${i}`,
  email: `user-${i}@example.com`,
  username: `user${i}`,
  role: 'user',
  subscription_status: 'inactive',
});
// 1,000 clients, each with its own token (claims as the edge verified them)
const claims = Array.from({ length: 1000 }, (_, i) => Object.freeze(tokens.sign(user(i)).claims));

/** Median µs per operation over ROUNDS runs of N operations. */
function measure(op) {
  for (let i = 0; i < 10_000; i++) op(i); // warm up
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) op(i);
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / N);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
}

const reusing = createAssertionSigner(keys);
// maxEntries 1 and alternating tokens: every call signs anew (a token the gateway has not seen)
const fresh = createAssertionSigner(keys, { maxEntries: 1 });
const signed = claims.map((c) => reusing.sign('flashcards', c));
const verifier = createAssertionVerifier('flashcards', keys.flashcards);
const forgetful = createAssertionVerifier('flashcards', keys.flashcards, { maxEntries: 1 });
const { privateKey } = generateKeyPairSync('ed25519');

const results = {
  'gateway sign, token seen before (reused)': measure((i) => reusing.sign('flashcards', claims[i % 1000])),
  'gateway sign, new token (HMAC-SHA256)': measure((i) => fresh.sign('flashcards', claims[i % 2])),
  'service verify, seen before': measure((i) => verifier.verify(signed[i % 1000])),
  'service verify, first sight (HMAC, JSON, zod)': measure((i) => forgetful.verify(signed[i % 2])),
  'Ed25519 sign of the same payload (alternative)': measure((i) =>
    sign(null, Buffer.from(JSON.stringify({ aud: 'flashcards', c: claims[i % 1000] })), privateKey),
  ),
};

console.log(`internal assertion cost, µs per operation (median of ${ROUNDS} × ${N}):`);
for (const [name, us] of Object.entries(results))
  console.log(`  ${name.padEnd(48)} ${us.toFixed(2).padStart(7)} µs  ${(us / BUDGET_US).toFixed(2)}× budget`);
const hmac = results['gateway sign, new token (HMAC-SHA256)'];
console.log(
  `ratios: reused/HMAC ${(results['gateway sign, token seen before (reused)'] / hmac).toFixed(2)}, ` +
    `Ed25519/HMAC ${(results['Ed25519 sign of the same payload (alternative)'] / hmac).toFixed(1)}`,
);

require('./support')
  .writeResult('assertion', {
    iterations: N,
    rounds: ROUNDS,
    budgetUs: BUDGET_US,
    operations: Object.entries(results).map(([operation, us]) => ({
      operation,
      us: Math.round(us * 100) / 100,
    })),
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
