import http from 'node:http';
import { createApp, finishApp, startHttpServer, type RunningHttpServer } from '@lingua/http';
import { silentLogger } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, nowhere, Stubs, stubServices } from './harness';

// The same requests through a gateway with the fast path (node:http) and one with every request on
// the express stack (GATEWAY_FAST_PATH=false): what the client and the service see must not differ.
const stubs = new Stubs();
let flashcards: RunningHttpServer;
let fast: RunningGateway;
let viaExpress: RunningGateway;
const big = Array.from({ length: 100 }, (_, i) => ({ id: i, word: `word-${i}`, translation: 'Übersetzung' }));

beforeAll(async () => {
  const app = createApp({ logger: silentLogger() });
  app.get('/api/flashcards/big', (_req, res) => void res.json({ success: true, data: big }));
  app.get('/api/flashcards/small', (_req, res) => void res.json({ success: true, data: { ok: 1 } }));
  finishApp(app, silentLogger());
  flashcards = await startHttpServer(app, { port: 0 });
  const services = await stubServices(stubs, {
    FLASHCARDS_HTTP_URL: flashcards.url,
    AI_HTTP_URL: await stubs.start('ai', 'hang'),
    NOTIFICATIONS_HTTP_URL: await nowhere(),
  });
  const env = { ...services, UPSTREAM_TIMEOUT_MS: '300' };
  fast = await gatewayWith({ ...env, GATEWAY_FAST_PATH: 'true' });
  viaExpress = await gatewayWith({ ...env, GATEWAY_FAST_PATH: 'false' });
});

afterAll(async () => {
  await Promise.all([fast.stop(), viaExpress.stop(), flashcards.close()]);
  stubs.close();
});

interface Seen {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Values that differ between any two responses (clock, generated ids, the gateway's own port), and
 * the remaining budget: each gateway reports it from what Redis last told it (a request admitted on
 * credit is counted behind it, ADR 0006), so two gateways in turn may each be a request behind.
 */
const VARYING = new Set([
  'date',
  'x-request-id',
  'x-correlation-id',
  'etag',
  'ratelimit-reset',
  'ratelimit-remaining',
]);
const comparable = (headers: http.IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !VARYING.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
const withoutIds = (body: Buffer, encoded: boolean) => {
  if (encoded) return body.length > 0;
  const text = body.toString();
  return text.replace(/"(timestamp|requestId|request_id)":"[^"]*"/g, '"$1":"-"');
};

describe('gateway fast path', () => {
  it.each([
    ['a read with a token', 'GET', '/api/flashcards/small', { authorization: bearer() }],
    [
      'a compressed read',
      'GET',
      '/api/flashcards/big',
      { authorization: bearer(), 'accept-encoding': 'gzip' },
    ],
    ['a guest on an optional path', 'GET', '/api/v1/subscriptions/plans', {}],
    ['no token on a protected path', 'GET', '/api/users/profile', {}],
    ['a malformed token', 'GET', '/api/users/profile', { authorization: 'Bearer nope' }],
    [
      'an invalid X-Timezone',
      'GET',
      '/api/users/profile',
      { authorization: bearer(), 'x-timezone': 'Mars/Base' },
    ],
    ['a delete with a token', 'DELETE', '/api/users/profile', { authorization: bearer() }],
    ['a service that hangs', 'GET', '/api/ai/quota', { authorization: bearer() }],
    ['a service that is down', 'GET', '/api/notifications/settings', { authorization: bearer() }],
    ['a user role on an admin path', 'GET', '/api/v1/admin/users', { authorization: bearer() }],
    ['a path no service owns', 'GET', '/api/v2/flashcards', { authorization: bearer() }],
    [
      'a browser Origin (no CORS origins set)',
      'GET',
      '/api/users/me',
      { authorization: bearer(), origin: 'https://x.example' },
    ],
    [
      'a streamed text body',
      'POST',
      '/api/users/import',
      { authorization: bearer(), 'content-type': 'text/csv' },
      'a,b\n',
    ],
    [
      'a JSON write with markup in a string',
      'PUT',
      '/api/users/profile',
      { authorization: bearer(), 'content-type': 'application/json' },
      '{"displayName":"<b>Ana</b>","nested":{"list":[1,"<i>x</i>"]}}',
    ],
    [
      'malformed JSON',
      'PUT',
      '/api/users/profile',
      { authorization: bearer(), 'content-type': 'application/json' },
      '{"displayName":',
    ],
    [
      'JSON nested deeper than the limit',
      'PUT',
      '/api/users/profile',
      { authorization: bearer(), 'content-type': 'application/json' },
      '['.repeat(200) + ']'.repeat(200),
    ],
    [
      'a JSON write without a token',
      'PUT',
      '/api/users/profile',
      { 'content-type': 'application/json' },
      '{"displayName":"Ana"}',
    ],
  ])(
    'When %s goes through both paths, Then status, headers and body are the same',
    async (...row: unknown[]) => {
      const [, method, path, headers, body] = row as [
        string,
        string,
        string,
        Record<string, string>,
        string?,
      ];
      const before = stubs.seen.length;
      const a = await call(fast.url, method, path, headers, body);
      const reached = stubs.seen.length > before;
      const seen = stubs.last();
      const b = await call(viaExpress.url, method, path, headers, body);
      // the service gets the same body, or neither path lets the request through
      expect(stubs.seen.length > before + (reached ? 1 : 0)).toBe(reached);
      if (reached) expect(stubs.last().body).toBe(seen.body);
      if (body && !headers['content-type']?.includes('json')) expect(seen.body).toBe(body);
      if (body && reached && headers['content-type']?.includes('json'))
        expect(seen.body).toBe(JSON.stringify(JSON.parse(body.replace(/<\/?[bi]>/g, ''))));
      expect(a.status).toBe(b.status);
      expect(comparable(a.headers)).toEqual(comparable(b.headers));
      expect(a.headers['ratelimit-remaining'] === undefined).toBe(
        b.headers['ratelimit-remaining'] === undefined,
      );
      const encoded = a.headers['content-encoding'] !== undefined;
      expect(withoutIds(a.body, encoded)).toEqual(withoutIds(b.body, encoded));
      expect(a.headers['x-request-id']).toBeTruthy();
    },
  );

  it.each([
    ['a read', 'GET', {}, undefined],
    // chunked by the client: the edge forwards the cleaned body with its own length
    [
      'a chunked JSON write',
      'PATCH',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      '{"a":"<b>b</b>"}',
    ],
  ])(
    'When %s goes through both paths, Then the service receives the same headers',
    async (_what, method, extra, body) => {
      const headers = {
        authorization: bearer(),
        'x-user-id': 'forged',
        'accept-language': 'de-DE',
        'x-request-id': 'abc-1',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        ...extra,
      };
      await call(fast.url, method, '/api/users/profile?x=1', headers, body);
      const one = stubs.last();
      await call(viaExpress.url, method, '/api/users/profile?x=1', headers, body);
      const two = stubs.last();
      expect(two.method).toBe(method);
      if (body) {
        expect(one.headers['transfer-encoding']).toBeUndefined();
        expect(one.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"b"}')));
        expect(one.body).toBe('{"a":"b"}');
      }
      // connection is hop-by-hop: the fast path keeps its upstream connection alive whatever the client says
      const gatewayPort = /(x-forwarded-port|x-forwarded-host|host|connection)/;
      // the assertion's expiry counts from its second: two calls may fall on either side of one
      const claimsOf = (assertion: string) => {
        const { exp: _exp, ...claims } = JSON.parse(
          Buffer.from(assertion.split('.')[1]!, 'base64url').toString(),
        ) as Record<string, unknown>;
        return claims;
      };
      const same = (h: http.IncomingHttpHeaders) =>
        Object.fromEntries(
          Object.entries(h)
            .filter(([name]) => !gatewayPort.test(name))
            .map(([name, value]) => [name, name === 'x-lingua-assertion' ? claimsOf(String(value)) : value]),
        );
      expect(one.url).toBe('/api/users/profile?x=1');
      expect(same(one.headers)).toEqual(same(two.headers));
      expect(one.headers['x-user-id']).toBe('11111111-1111-4111-8111-111111111111');
      expect(one.headers['x-request-id']).toBe('abc-1');
      expect(one.headers.connection).toBe('keep-alive');
    },
  );

  it('When a client gives up while the service hangs, Then the gateway keeps serving', async () => {
    await expect(
      fetch(`${fast.url}/api/ai/quota`, {
        headers: { authorization: bearer() },
        signal: AbortSignal.timeout(50),
      }),
    ).rejects.toThrow();
    const after = await call(fast.url, 'GET', '/api/flashcards/small', { authorization: bearer() });
    expect(after.status).toBe(200);
  });
});
