// One benchmark server per process (so the load generator and each server get their own event loop):
//   node bench/servers.js bare | service | gateway <upstream-url>
// Prints "ready <url>" when listening.
const http = require('node:http');
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

async function main(kind, upstream) {
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
    finishApp(app, silent);
    return (await startHttpServer(app, { port: 0 })).url;
  }
  const { loadGatewayConfig } = require('../gateway/dist/config');
  const { startGateway } = require('../gateway/dist/server');
  const config = loadGatewayConfig({
    ...process.env,
    GATEWAY_PORT: '0',
    FLASHCARDS_HTTP_URL: upstream,
    LOG_LEVEL: 'silent',
  });
  return (await startGateway(config, { logger: silent })).url;
}

main(process.argv[2], process.argv[3]).then(
  (url) => console.log(`ready ${url}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
