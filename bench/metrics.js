#!/usr/bin/env node
// What the Prometheus metrics add to a request's CPU (issue 20's budget: under 5 µs per request),
// side by side in one run: the same request listener called bare and wrapped as every process wraps
// it (@lingua/metrics instrumentHttp: in-flight gauge, route-template capture, counter, histogram),
// with the gateway's route label (route-table prefix) and its upstream histogram, and with a
// service's express route template. CPU only, no network: the request and response are minimal
// event emitters, so the difference between two rows is the metrics' own cost. Needs `npm run build`.
const { EventEmitter } = require('node:events');
const { performance } = require('node:perf_hooks');
const {
  captureRouteTemplates,
  instrumentHttp,
  UNMATCHED_ROUTE,
  metricsText,
} = require('../libs/metrics/dist');
const { gatewayRouteLabel } = require('../gateway/dist/request-metrics');
const { observeUpstream } = require('../gateway/dist/middleware/proxy');

const N = Number(process.env.BENCH_ITERATIONS ?? 300_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BUDGET_US = 5;
const PATHS = [
  '/api/flashcards/1',
  '/api/v1/auth/login',
  '/api/ai/quota',
  '/api/users/profile',
  '/api/study/due',
];

/** Median µs per call of op over ROUNDS runs of N calls (after a warm-up). */
function measure(op) {
  for (let i = 0; i < 20_000; i++) op(i);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) op(i);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / N);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
}

const request = (i) => ({ method: i % 7 === 0 ? 'POST' : 'GET', url: PATHS[i % PATHS.length], headers: {} });
const response = () => Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });

// what express does to a routed request (its request prototype, a mount path, the matched route),
// then the response closing
const expressRequest = Object.create(Object.prototype);
captureRouteTemplates(expressRequest);
const serviceListener = (req, res) => {
  Object.setPrototypeOf(req, expressRequest);
  req.baseUrl = '/api/flashcards';
  req.route = { path: '/:id' };
  res.emit('close');
};
const gatewayListener = (_req, res) => res.emit('close');
const started = performance.now();
const gatewayWithUpstream = (_req, res) => {
  observeUpstream('flashcards', started, 200);
  res.emit('close');
};

const serviceWrapped = instrumentHttp(
  'bench-service',
  serviceListener,
  (_q, _s, route) => route ?? UNMATCHED_ROUTE,
);
const gatewayWrapped = instrumentHttp('bench-gateway', gatewayWithUpstream, gatewayRouteLabel);

const rows = [
  ['service listener, bare', (i) => serviceListener(request(i), response())],
  ['service listener + instrumentHttp (express template)', (i) => serviceWrapped(request(i), response())],
  ['gateway listener, bare', (i) => gatewayListener(request(i), response())],
  [
    'gateway listener + instrumentHttp (prefix label) + upstream histogram',
    (i) => gatewayWrapped(request(i), response()),
  ],
].map(([name, op]) => [name, measure(op)]);

for (const [name, us] of rows) console.log(`${us.toFixed(3).padStart(8)} µs CPU  ${name}`);
const serviceCost = rows[1][1] - rows[0][1];
const gatewayCost = rows[3][1] - rows[2][1];
console.log(
  `\nmetrics cost per request: service ${serviceCost.toFixed(3)} µs, gateway ${gatewayCost.toFixed(3)} µs`,
);
console.log(`budget ${BUDGET_US} µs: ${Math.max(serviceCost, gatewayCost) < BUDGET_US ? 'within' : 'OVER'}`);

// and a scrape of what that left behind, for scale (one scrape every 15 s is not per request)
const t = performance.now();
metricsText().then((text) =>
  console.log(`one scrape: ${(performance.now() - t).toFixed(1)} ms, ${text.length} bytes`),
);
