import http from 'node:http';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import type { RunningGateway } from '../src/server';
import { waitFor } from '@lingua/testing';
import { bearer, gatewayWith, Stubs, stubServices } from './harness';

// Rolling deploys: a replica that closes a connection under a request (its keep-alive socket at
// shutdown, or a process killed) costs the client nothing for requests that may safely go twice;
// and a gateway told to stop stays serving, not ready, for its drain delay.

/** An upstream that drops the connection of the first `drops` requests without answering. */
async function flakyUpstream(drops: number) {
  const seen: string[] = [];
  const forwarded: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    forwarded.push(req.headers['x-forwarded-proto'] as string | undefined);
    if (seen.length <= drops) return void req.socket.destroy();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ success: true, data: { attempt: seen.length } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    forwarded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('retry of requests that lost their connection', () => {
  const stubs = new Stubs();
  afterAll(() => stubs.close());

  async function through(
    drops: number,
    method: string,
    headers: Record<string, string> = {},
    fastPath = 'true',
  ) {
    const upstream = await flakyUpstream(drops);
    const gateway = await gatewayWith({
      ...(await stubServices(stubs, { FLASHCARDS_HTTP_URL: upstream.url })),
      GATEWAY_FAST_PATH: fastPath,
    });
    try {
      const res = await fetch(`${gateway.url}/api/flashcards/due`, {
        method,
        headers: { authorization: bearer(), ...headers },
      });
      await res.arrayBuffer();
      // each attempt forwards the same headers (not appended to by the first one)
      expect(new Set(upstream.forwarded).size).toBeLessThanOrEqual(1);
      return { status: res.status, attempts: upstream.seen.length };
    } finally {
      await gateway.stop();
      await upstream.close();
    }
  }

  it.each(['GET', 'DELETE'])(
    'When the connection drops under an idempotent %s, Then the gateway sends it again and the client gets the answer',
    async (method) => {
      expect(await through(1, method)).toEqual({ status: 200, attempts: 2 });
    },
  );

  it.each([
    ['GET', 'true'],
    ['PUT', 'true'],
    ['GET', 'false'],
    ['PUT', 'false'],
  ])(
    'When the connection drops under an idempotent %s with a JSON body type (fast path: %s), Then it is sent again too',
    async (method, fastPath) => {
      const json = { 'content-type': 'application/json' };
      expect(await through(1, method, json, fastPath)).toEqual({ status: 200, attempts: 2 });
    },
  );

  // a replica killed mid-request still accepts connections for a moment, so the first retry can be
  // lost the same way; the second one, after a pause, finds the replica gone
  it.each([
    ['the fast path', 'true'],
    ['the express path', 'false'],
  ])(
    'When it drops twice (%s), Then the second retry gets the answer, and after a third drop the client gets the 503',
    async (_path, fastPath) => {
      const headers = { 'content-type': 'application/json' };
      expect(await through(2, 'GET', headers, fastPath)).toEqual({ status: 200, attempts: 3 });
      expect(await through(3, 'GET', headers, fastPath)).toEqual({ status: 503, attempts: 3 });
    },
  );

  it('When the connection drops under a POST, Then it is not repeated (it may have had its effect)', async () => {
    expect(await through(1, 'POST')).toEqual({ status: 503, attempts: 1 });
  });
});

/**
 * A replica behind a TCP balancer, killed: every connection opened to it before the kill fails its
 * next request, while new connections reach a live replica. `warm` requests are held until all
 * arrived, so the gateway's pool keeps that many idle connections.
 */
async function killedReplica(warm: number) {
  const before = new Set<Socket>();
  let killed = false;
  let held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    if (killed && before.has(req.socket)) return void req.socket.destroy();
    const answer = () => res.end(JSON.stringify({ success: true, data: {} }));
    if (killed) return answer();
    held.push(answer);
    if (held.length < warm) return;
    for (const a of held) a();
    held = [];
  });
  server.on('connection', (socket) => {
    if (!killed) before.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    kill: () => (killed = true),
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('retry after a replica was killed', () => {
  const stubs = new Stubs();
  afterAll(() => stubs.close());

  it.each([
    ['the fast path', 'true'],
    ['the express path', 'false'],
  ])(
    'When the pool holds other idle connections to the killed replica (%s), Then the retry goes on a new connection and the client gets the answer',
    async (_path, fastPath) => {
      const headers = { 'content-type': 'application/json' };
      const upstream = await killedReplica(4);
      const gateway = await gatewayWith({
        ...(await stubServices(stubs, { FLASHCARDS_HTTP_URL: upstream.url })),
        GATEWAY_FAST_PATH: fastPath,
      });
      const get = () =>
        fetch(`${gateway.url}/api/flashcards/due`, { headers: { authorization: bearer(), ...headers } });
      try {
        const warm = await Promise.all([get(), get(), get(), get()]);
        expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200]);
        await Promise.all(warm.map((r) => r.arrayBuffer()));
        upstream.kill();
        const res = await get();
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      } finally {
        await gateway.stop();
        await upstream.close();
      }
    },
  );
});

describe('drain on stop', () => {
  const stubs = new Stubs();
  let gateway: RunningGateway;
  afterAll(() => stubs.close());

  it('When the gateway is told to stop, Then it is not ready at once, still serves with Connection: close for its drain delay, then refuses', async () => {
    gateway = await gatewayWith({ ...(await stubServices(stubs)), DRAIN_DELAY_MS: '1500' });
    expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
    const stopped = gateway.stop();
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(503);
    const served = await fetch(`${gateway.url}/api/v1/subscriptions/plans`);
    expect(served.status).toBe(200);
    expect(served.headers.get('connection')).toBe('close');
    await stopped;
    await expect(fetch(`${gateway.url}/health/live`)).rejects.toThrow();
  });

  it('When a client keeps an idle keep-alive connection and a request is in flight, Then the stop lets the request finish and drops the idle connection after SHUTDOWN_GRACE_MS, not the 5 s idle window', async () => {
    // an upstream that answers its first request only when told to: the request in flight
    let answer: (() => void) | undefined;
    const slow = http.createServer((_req, res) => {
      answer = () => res.end(JSON.stringify({ success: true, data: {} }));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    gateway = await gatewayWith({
      ...(await stubServices(stubs, {
        FLASHCARDS_HTTP_URL: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      })),
      SHUTDOWN_GRACE_MS: '1500',
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const get = (path: string) =>
      new Promise<{ status: number; socket: Socket }>((resolve, reject) => {
        const req = http.get(
          `${gateway.url}${path}`,
          { agent, headers: { authorization: bearer() } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, socket: req.socket! }));
          },
        );
        req.on('error', reject);
      });
    try {
      const idle = await get('/api/v1/subscriptions/plans');
      expect(idle.status).toBe(200);
      const idleClosed = new Promise<number>((resolve) =>
        idle.socket.once('close', () => resolve(Date.now())),
      );
      const inFlight = get('/api/flashcards/due');
      await waitFor(() => expect(answer).toBeDefined(), { timeoutMs: 5_000 });
      const started = Date.now();
      const stopped = gateway.stop().then(() => Date.now());
      // the upstream answers once the stop is under way: the gateway no longer accepts connections
      await waitFor(
        () =>
          new Promise<void>((resolve, reject) => {
            const probe = net.connect(Number(new URL(gateway.url).port), '127.0.0.1');
            probe.once('connect', () => (probe.destroy(), reject(new Error('still accepting'))));
            probe.once('error', () => resolve());
          }),
        { timeoutMs: 5_000 },
      );
      answer!();
      expect((await inFlight).status).toBe(200);
      const [closedAt, stoppedAt] = await Promise.all([idleClosed, stopped]);
      expect(closedAt - started).toBeGreaterThanOrEqual(1_400);
      expect(closedAt - started).toBeLessThan(4_500);
      expect(stoppedAt - started).toBeLessThan(4_500);
    } finally {
      agent.destroy();
      await new Promise<void>((resolve) => (slow.closeAllConnections(), slow.close(() => resolve())));
    }
  });

  it('When a request with a JSON body is proxied while the gateway drains, Then its answer says Connection: close too, whatever the service said', async () => {
    // the service answers keep-alive, as every service does; the proxy must not pass that on
    const upstream = await flakyUpstream(0);
    gateway = await gatewayWith({
      ...(await stubServices(stubs, { FLASHCARDS_HTTP_URL: upstream.url })),
      DRAIN_DELAY_MS: '1500',
    });
    try {
      const stopped = gateway.stop();
      const served = await fetch(`${gateway.url}/api/flashcards`, {
        method: 'POST',
        headers: { authorization: bearer(), 'content-type': 'application/json' },
        body: JSON.stringify({ word: 'Haus', translation: 'house' }),
      });
      expect(served.status).toBe(200);
      expect(upstream.seen).toEqual(['POST /api/flashcards']);
      expect(served.headers.get('connection')).toBe('close');
      await stopped;
    } finally {
      await upstream.close();
    }
  });
});
