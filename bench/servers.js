// One benchmark server per process (so the load generator and each server get their own event loop):
//   node bench/servers.js bare | service | minimal-proxy <upstream-url>
//                       | gateway <upstream-url> [access-log sample rate] [fast path: true|false]
// Prints "ready <url>" when listening.
const http = require('node:http');
const pino = require('pino');
const { createApp, finishApp, startHttpServer } = require('../libs/http/dist');
const { createLogger } = require('../libs/logger/dist');

const payload = {
  id: 'card_8f14e45fceea167a',
  word: 'run',
  translation: 'laufen',
  masteryLevel: 40,
  synonyms: ['sprint', 'dash'],
};
const silent = createLogger('bench', { level: 'silent' });
// a normal exit on SIGTERM, so `node --cpu-prof bench/servers.js …` writes its profile
process.on('SIGTERM', () => process.exit(0));

async function main(kind, upstream, sampleRate, fastPath) {
  if (kind === 'bare') {
    const server = http.createServer((_req, res) => {
      const body = JSON.stringify({ success: true, data: payload });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${server.address().port}`;
  }
  if (kind === 'service') {
    const app = createApp({ logger: silent });
    app.get('/api/flashcards/:id', (_req, res) => res.json({ success: true, data: payload }));
    // a JSON write: the body is read and answered with the card (the JSON POST scenarios)
    app.post('/api/flashcards', (req, res) =>
      res.status(201).json({ success: true, data: { ...payload, ...req.body } }),
    );
    finishApp(app, silent);
    return (await startHttpServer(app, { port: 0 })).url;
  }
  if (kind === 'minimal-proxy') return minimalProxy(upstream);
  // The real gateway, logging at info into /dev/null (the cost of writing the lines is measured,
  // not the terminal), with budgets large enough that the load is never rate limited.
  const dist = process.env.BENCH_GATEWAY_DIST ?? '../gateway/dist'; // to compare two builds
  require(`${dist}/v8-flags`); // as gateway/dist/main.js does first, then telemetry (spans recorded)
  if (process.env.BENCH_TELEMETRY !== 'off') require('../libs/telemetry/dist/register');
  const { loadGatewayConfig } = require(`${dist}/config`);
  const { startGateway } = require(`${dist}/server`);
  const config = loadGatewayConfig({
    ...process.env,
    NODE_ENV: 'test',
    GATEWAY_PORT: '0',
    FLASHCARDS_HTTP_URL: upstream,
    LOG_LEVEL: 'info',
    ACCESS_LOG_SAMPLE_RATE: sampleRate || '1',
    GATEWAY_FAST_PATH: fastPath || 'true',
    RATE_LIMIT_PREFIX: `bench:${process.pid}`,
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '1000000000',
    RATE_LIMIT_CATALOGUE_PREMIUM_PER_HOUR: '1000000000',
    RATE_LIMIT_FREE_PER_HOUR: '1000000000',
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: '1000000000',
  });
  const logger = createLogger('gateway', {
    level: 'info',
    destination: pino.destination({ dest: '/dev/null', sync: false }),
  });
  return (await startGateway(config, { logger })).url;
}

/**
 * The floor of a proxy on node: node:http in front of an undici Pool (the gateway's own building
 * blocks), forwarding headers and body as they are, with X-Forwarded-For as the nginx peer sets it,
 * and nothing else: no auth, no limits, no ids, no logging, no headers of its own. What the real
 * gateway costs beyond it is the price of its features.
 */
async function minimalProxy(upstream) {
  const { Pool } = require('undici');
  const pool = new Pool(upstream, { connections: 256 });
  const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
  const server = http.createServer((req, res) => {
    const headers = [];
    for (const [name, value] of Object.entries(req.headers))
      if (!hopByHop.has(name)) headers.push(name, Array.isArray(value) ? value.join(', ') : value);
    headers.push('x-forwarded-for', req.socket.remoteAddress);
    const streamed =
      req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    pool.dispatch(
      { path: req.url, method: req.method, headers, body: streamed ? req : null },
      {
        onRequestStart() {},
        onResponseStart(_c, status, out) {
          for (const [name, value] of Object.entries(out))
            if (!hopByHop.has(name)) res.setHeader(name, value);
          res.statusCode = status;
        },
        onResponseData(_c, chunk) {
          res.write(chunk);
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError() {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      },
    );
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${server.address().port}`;
}

main(process.argv[2], process.argv[3], process.argv[4], process.argv[5]).then(
  (url) => console.log(`ready ${url}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
