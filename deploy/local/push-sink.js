// A development push sink for `npm start`: the notifications service sends pushes here when no APNs
// or FCM credentials are configured (PUSH_SINK_URL, http://127.0.0.1:1026/push), and the sink prints
// each one, so reminders can be seen locally without Apple or Google. Nothing leaves the machine.
const http = require('node:http');

/** The token shortened for the log: enough to tell devices apart, not the whole secret-ish string. */
const shortToken = (t) => (t.length > 16 ? `${t.slice(0, 8)}…${t.slice(-4)}` : t);

/** @returns {Promise<{ port: number, pushes: object[], close(): Promise<void> } | undefined>} undefined when the port is taken */
function startPushSink({ port, host = '127.0.0.1', onPush = () => undefined }) {
  const pushes = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let push;
      try {
        push = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        return res.writeHead(400).end();
      }
      if (req.method !== 'POST' || typeof push?.token !== 'string') return res.writeHead(400).end();
      const entry = {
        platform: push.platform,
        token: push.token,
        to: `${push.platform}:${shortToken(push.token)}`,
        title: push.title ?? '',
        body: push.body ?? '',
        collapseKey: push.collapseKey,
        data: push.data,
        text: [push.title, push.body].filter(Boolean).join(' — '),
      };
      pushes.push(entry);
      onPush(entry);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    server.listen(port, host, () =>
      resolve({
        port: server.address().port,
        pushes,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    );
  });
}

module.exports = { startPushSink, shortToken };
