// A webhook endpoint for the container test (deploy/containers/docker-compose.local.yml): POST
// anywhere records the delivery (headers and the exact body) and answers 204; GET /received lists them.
'use strict';
const http = require('node:http');

const received = [];
http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/received') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(received));
        return;
      }
      received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  })
  .listen(8080, '0.0.0.0');
