import http from 'node:http';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { createApp, finishApp, startHttpServer, type RunningHttpServer } from '@lingua/http';
import { silentLogger } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, Stubs, stubServices } from './harness';

// The flashcards stand-in is a real @lingua/http app (express ETags, JSON), the others echo.
const stubs = new Stubs();
let flashcards: RunningHttpServer;
let gateway: RunningGateway;
let maintenance: RunningGateway;
const big = Array.from({ length: 200 }, (_, i) => ({ id: i, word: `word-${i}`, translation: 'Übersetzung' }));

beforeAll(async () => {
  const app = createApp({ logger: silentLogger() });
  app.get('/api/flashcards', (_req, res) => void res.json({ success: true, data: { flashcards: big } }));
  app.get('/api/flashcards/small', (_req, res) => void res.json({ success: true, data: { ok: 1 } }));
  finishApp(app, silentLogger());
  flashcards = await startHttpServer(app, { port: 0 });
  const services = await stubServices(stubs, { FLASHCARDS_HTTP_URL: flashcards.url });
  gateway = await gatewayWith({
    ...services,
    CORS_ORIGINS: 'https://app.lingua.example, https://admin.lingua.example',
    JSON_BODY_LIMIT_BYTES: '4096',
    JSON_MAX_DEPTH: '5',
    UPLOAD_LIMIT_FREE_BYTES: '2048',
  });
  maintenance = await gatewayWith({ ...services, MAINTENANCE_MODE: 'true' });
});

afterAll(async () => {
  await Promise.all([gateway.stop(), maintenance.stop(), flashcards.close()]);
  stubs.close();
});

const authorization = bearer();
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    body,
    headers: { authorization, 'content-type': 'application/json', ...headers },
  });

/** A POST whose body is sent in these pieces, without a Content-Length (chunked). */
const postChunked = (path: string, type: string, ...parts: string[]) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    body: new ReadableStream({
      start(c) {
        for (const part of parts) c.enqueue(new TextEncoder().encode(part));
        c.close();
      },
    }),
    duplex: 'half',
    headers: { authorization, 'content-type': type },
  } as RequestInit);

/** Raw GET (fetch would decompress), for the encoding tests. */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(`${gateway.url}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    },
  );
}

describe('API conventions at the gateway', () => {
  it('When no X-Request-ID is sent, Then one is generated, echoed and passed on with the correlation id', async () => {
    const res = await fetch(`${gateway.url}/api/users/profile`, { headers: { authorization } });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-correlation-id')).toBe(id);
    expect(stubs.last().headers['x-request-id']).toBe(id);
  });

  it('When a cacheable read is repeated with its ETag, Then 304 without a body', async () => {
    const first = await fetch(`${gateway.url}/api/flashcards`);
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    // node:http, not fetch: fetch adds `Cache-Control: no-cache` to conditional requests
    const again = await rawGet('/api/flashcards', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await rawGet('/api/flashcards', { 'if-none-match': 'W/"other"' })).status).toBe(200);
  });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)(
    'When the client accepts %s, Then large responses come compressed',
    async (encoding, decode) => {
      const res = await rawGet('/api/flashcards', { 'accept-encoding': encoding });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(JSON.parse(decode(res.body).toString()).data.flashcards).toHaveLength(200);
    },
  );

  it('When a response is small, Then it is sent uncompressed', async () => {
    const res = await rawGet('/api/flashcards/small', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('When a configured origin asks, Then CORS allows it and exposes the ids and rate headers; other origins get no grant', async () => {
    const preflight = await fetch(`${gateway.url}/api/flashcards`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.lingua.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.lingua.example');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const simple = await fetch(`${gateway.url}/api/flashcards/small`, {
      headers: { origin: 'https://app.lingua.example' },
    });
    expect(simple.headers.get('access-control-expose-headers')).toMatch(/X-Request-ID.*RateLimit-Remaining/);
    const other = await fetch(`${gateway.url}/api/flashcards/small`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each([
    ['proxied on the fast path', '/api/flashcards/small'],
    ['proxied, a public read', '/api/v1/subscriptions/plans'],
    ["the gateway's own", '/api/v1/status'],
  ])(
    'When an API response (%s) is sent, Then it carries the API security headers and the API version',
    async (_kind, path) => {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('same-site');
      // helmet's HTML-only headers stay off JSON
      expect(res.headers.get('x-xss-protection')).toBeNull();
      expect(res.headers.get('x-download-options')).toBeNull();
      expect(res.headers.get('api-version')).toBe('v1');
      expect(res.headers.get('x-powered-by')).toBeNull();
    },
  );

  it('When the docs page is sent, Then it carries the HTML security headers that let Swagger UI run', async () => {
    const res = await fetch(`${gateway.url}/docs/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('content-security-policy')).toMatch(
      /default-src 'self'.*style-src 'self' 'unsafe-inline'/,
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('When a JSON body carries markup, Then the service receives it cleaned, except secrets which stay verbatim', async () => {
    const res = await post(
      '/api/v1/subscriptions/cancel',
      JSON.stringify({
        feedback: 'too <b>pricey</b><script>alert(1)</script> & slow',
        nested: { list: ['<img src=x onerror=alert(1)>ok'] },
        password: 'Pa<ss>word1',
        receipt_data: 'abc<def>',
      }),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(stubs.last().body)).toEqual({
      feedback: 'too pricey & slow',
      nested: { list: ['ok'] },
      password: 'Pa<ss>word1',
      receipt_data: 'abc<def>',
    });
  });

  it('When a JSON body arrives chunked, Then the service receives it whole with a Content-Length', async () => {
    const res = await postChunked(
      '/api/v1/subscriptions/cancel',
      'application/json',
      '{"feedback":',
      '"<i>late</i>"}',
    );
    expect(res.status).toBe(200);
    expect(stubs.last().body).toBe('{"feedback":"late"}');
    expect(stubs.last().headers['content-length']).toBe('19');
    expect(stubs.last().headers['transfer-encoding']).toBeUndefined();
  });

  it("When an upload arrives chunked (no Content-Length), Then 411 before anything reaches the service; one over the plan's size 413", async () => {
    const before = stubs.seen.length;
    const part =
      '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nword,translation\r\n';
    const upload = await postChunked(
      '/api/flashcards/import',
      'multipart/form-data; boundary=zz',
      part,
      'a,b\r\n--zz--\r\n',
    );
    expect(upload.status).toBe(411);
    // /api/flashcards speaks the spec's Group B envelope: the error as a message
    expect(await upload.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(/Content-Length/),
    });
    const big = await post('/api/users/avatar', part + 'x'.repeat(3000) + '\r\n--zz--\r\n', {
      'content-type': 'multipart/form-data; boundary=zz',
    });
    expect(big.status).toBe(413);
    // a later request that does reach a service shows that neither did
    expect((await post('/api/v1/subscriptions/cancel', '{}')).status).toBe(200);
    expect(stubs.seen.length).toBe(before + 1);
  });

  it('When a JSON body comes in UTF-16, Then the service receives it as UTF-8, labelled so', async () => {
    const text = '{"feedback":"größer"}';
    const res = await fetch(`${gateway.url}/api/v1/subscriptions/cancel`, {
      method: 'POST',
      body: Buffer.from(text, 'utf16le'),
      headers: { authorization, 'content-type': 'application/json; charset=utf-16le' },
    });
    expect(res.status).toBe(200);
    expect(stubs.last().body).toBe(text);
    expect(stubs.last().headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('When a JSON body is over the limit, Then 413 in the path envelope', async () => {
    const res = await post('/api/v1/subscriptions/cancel', JSON.stringify({ feedback: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      success: false,
      data: null,
      error: { code: 'PAYLOAD_TOO_LARGE' },
    });
  });

  it('When a JSON body nests too deep, Then 400 (VAL002 in Group C)', async () => {
    const deep = JSON.stringify({ a: { b: { c: { d: { e: { f: 1 } } } } } });
    const res = await post('/api/flashcard-sets', deep);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'VAL002' } });
  });

  it('When a JSON body is malformed, Then 400, not 500', async () => {
    const res = await post('/api/v1/subscriptions/cancel', '{"feedback": ');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('INVALID_INPUT');
  });

  it('When an upload exceeds the free plan size, Then 413', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x'.repeat(4096)]), 'cards.csv');
    const res = await fetch(`${gateway.url}/api/import/cards`, {
      method: 'POST',
      body: form,
      headers: { authorization },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('VAL002');
  });

  it('When X-Timezone is not an IANA zone, Then 400; a valid zone and Accept-Language reach the service', async () => {
    const bad = await fetch(`${gateway.url}/api/users/profile`, {
      headers: { authorization, 'x-timezone': 'Mars/Olympus' },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('VAL001');
    const ok = await fetch(`${gateway.url}/api/users/profile`, {
      headers: { authorization, 'x-timezone': 'Europe/Berlin', 'accept-language': 'de-DE, en;q=0.5' },
    });
    expect(ok.status).toBe(200);
    expect(stubs.last().headers).toMatchObject({
      'x-timezone': 'Europe/Berlin',
      'accept-language': 'de-DE, en;q=0.5',
    });
  });

  it('When maintenance mode is on, Then the API answers 503 with Retry-After but status and health still answer', async () => {
    const res = await fetch(`${maintenance.url}/api/users/profile`, { headers: { authorization } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('300');
    const status = await fetch(`${maintenance.url}/api/v1/status`, { headers: { authorization } });
    expect(await status.json()).toMatchObject({
      data: { api_status: 'maintenance', maintenance_mode: true },
    });
    expect((await fetch(`${maintenance.url}/health/live`)).status).toBe(200);
  });
});
