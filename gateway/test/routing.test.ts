import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, silentLogger } from '@lingua/testing';
import { loadGatewayConfig } from '../src/config';
import { ROUTES } from '../src/routes';
import { type RunningGateway, startGateway } from '../src/server';

// Stub upstreams that say who they are and echo what they received.
type Seen = {
  service: string;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bodyLength: number;
};
const seen: Seen[] = [];
const stubs: http.Server[] = [];

async function stub(service: string, behaviour: 'echo' | 'hang' = 'echo'): Promise<string> {
  const server = http.createServer((req, res) => {
    let length = 0;
    req.on('data', (c: Buffer) => (length += c.length));
    req.on('end', () => {
      seen.push({ service, method: req.method!, url: req.url!, headers: req.headers, bodyLength: length });
      if (behaviour === 'hang') return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ service, url: req.url }));
    });
  });
  stubs.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway(
    loadGatewayConfig({
      ...process.env,
      GATEWAY_PORT: '0',
      UPSTREAM_TIMEOUT_MS: '300',
      IDENTITY_HTTP_URL: await stub('identity'),
      FLASHCARDS_HTTP_URL: await stub('flashcards'),
      SUBSCRIPTIONS_HTTP_URL: await stub('subscriptions'),
      AI_HTTP_URL: await stub('ai', 'hang'),
      NOTIFICATIONS_HTTP_URL: `http://127.0.0.1:${await freePort()}`, // nothing listens there
    }),
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  await gateway.stop();
  for (const s of stubs) {
    s.closeAllConnections();
    s.close();
  }
});

describe('gateway routing', () => {
  it.each([
    ['/api/v1/auth/login', 'identity'],
    ['/api/auth/register', 'identity'],
    ['/api/users/profile', 'identity'],
    ['/api/v1/subscriptions/plans?x=1', 'subscriptions'],
    ['/api/flashcards', 'flashcards'],
    ['/api/flashcards/due', 'flashcards'],
    ['/api/study/completed-tests', 'flashcards'],
    ['/api/flashcard-sets/abc', 'flashcards'],
    ['/api/learning/due', 'flashcards'],
    ['/api/achievements', 'flashcards'],
    ['/api/export/cards?format=csv', 'flashcards'],
    ['/api/import/cards', 'flashcards'],
  ])('When %s is requested, Then %s receives it with the path unchanged', async (path, service) => {
    const res = await fetch(`${gateway.url}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ service, url: path });
  });

  it('When a body is posted, Then it is streamed through unparsed (even past the services JSON limit) with the request ids', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(300_000) });
    const res = await fetch(`${gateway.url}/api/flashcards`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-request-id': 'gw-1', 'x-correlation-id': 'corr-1' },
    });
    expect(res.status).toBe(200);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({
      service: 'flashcards',
      method: 'POST',
      bodyLength: Buffer.byteLength(body),
    });
    expect(last.headers).toMatchObject({ 'x-request-id': 'gw-1', 'x-correlation-id': 'corr-1' });
    expect(res.headers.get('connection')).not.toBe('close');
  });

  it('When the service is unreachable, Then 503 in the path family envelope', async () => {
    const res = await fetch(`${gateway.url}/api/notifications`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
  });

  it('When the service does not answer in time, Then 504 after the upstream timeout, not a hang', async () => {
    const started = Date.now();
    const res = await fetch(`${gateway.url}/api/ai/quota`);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('When a path belongs to no route, Then the gateway itself answers 404', async () => {
    const res = await fetch(`${gateway.url}/api/flashcardsX`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'RES001' } });
  });

  it('When the table is read, Then no prefix is served by two services', () => {
    const prefixes = ROUTES.flatMap((r) => r.prefixes);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });
});
