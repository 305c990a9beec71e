import { createApp, finishApp, sendSuccess, startHttpServer, type RunningHttpServer } from '@lingua/http';
import { currentRequestContext } from '@lingua/logger';
import { silentLogger, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, Stubs, stubServices } from './harness';

// A service built with the house middleware whose work waits on a slow dependency, behind gateways
// on both request paths: the deadline set at the edge reaches the service, which answers in time and
// stops its work; the excess of a burst is shed at the edge at once.
const stubs = new Stubs();
let flashcards: RunningHttpServer;
let fast: RunningGateway;
let viaExpress: RunningGateway;
let edgeShedding: RunningGateway;
/** Per request: the budget the service was given and why its work stopped. */
const work: { budgetMs: number; stoppedBy?: string }[] = [];
const held: (() => void)[] = [];

beforeAll(async () => {
  const logger = silentLogger();
  const app = createApp({ logger });
  // a dependency that never answers: the work ends only when told to stop
  const slowWork = async (res: Parameters<typeof sendSuccess>[0]) => {
    const ctx = currentRequestContext()!;
    const entry: (typeof work)[number] = { budgetMs: ctx.deadline! - Date.now() };
    work.push(entry);
    await new Promise<void>((resolve) =>
      ctx.signal!.addEventListener('abort', () => {
        entry.stoppedBy = (ctx.signal!.reason as { code?: string }).code;
        resolve();
      }),
    );
    sendSuccess(res, {});
  };
  app.get('/api/flashcards/slow', (_req, res) => slowWork(res));
  app.post('/api/flashcards/slow', (_req, res) => slowWork(res));
  app.get('/api/flashcards/held', async (_req, res) => {
    await new Promise<void>((resolve) => held.push(resolve));
    sendSuccess(res, { ok: true });
  });
  finishApp(app, logger);
  flashcards = await startHttpServer(app, { port: 0 });
  const services = await stubServices(stubs, { FLASHCARDS_HTTP_URL: flashcards.url });
  const env = { ...services, DEADLINE_READ_MS: '300', DEADLINE_WRITE_MS: '500' };
  fast = await gatewayWith({ ...env, GATEWAY_FAST_PATH: 'true' });
  viaExpress = await gatewayWith({ ...env, GATEWAY_FAST_PATH: 'false' });
  // an edge that admits 3 requests at once (2 writes), so the test can fill it
  edgeShedding = await gatewayWith({
    ...env,
    GATEWAY_LOAD_SHED_MAX_IN_FLIGHT: '3',
    GATEWAY_LOAD_SHED_TARGET_MS: '60000',
  });
});

afterAll(async () => {
  held.splice(0).forEach((release) => release());
  await Promise.all([fast.stop(), viaExpress.stop(), edgeShedding.stop(), flashcards.close()]);
  stubs.close();
});

beforeEach(() => (work.length = 0));

const auth = { authorization: bearer() };

describe.each([
  ['fast path', () => fast],
  ['express path', () => viaExpress],
])('deadlines through the gateway (%s)', (_name, gateway) => {
  it('When a read waits on a slow dependency, Then 504 SRV002 comes at the read budget (300 ms) and the service stops the work', async () => {
    const started = performance.now();
    const res = await fetch(`${gateway().url}/api/flashcards/slow`, { headers: auth });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ success: false, error: expect.any(String) });
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_300);
    await waitFor(() => expect(work[0]?.stoppedBy).toBe('DEADLINE_EXCEEDED'));
    expect(work[0]!.budgetMs).toBeLessThanOrEqual(300);
    expect(work[0]!.budgetMs).toBeGreaterThan(200);
  });

  it('When a write waits on it, Then the write budget (500 ms) applies; When the client asks for less, Then it gets less', async () => {
    const write = await fetch(`${gateway().url}/api/flashcards/slow`, { method: 'POST', headers: auth });
    expect(write.status).toBe(504);
    const hurried = await fetch(`${gateway().url}/api/flashcards/slow`, {
      headers: { ...auth, 'x-request-timeout-ms': '100' },
    });
    expect(hurried.status).toBe(504);
    await waitFor(() =>
      expect(work.map((w) => w.stoppedBy)).toEqual(['DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED']),
    );
    expect(work[0]!.budgetMs).toBeGreaterThan(400);
    expect(work[0]!.budgetMs).toBeLessThanOrEqual(500);
    expect(work[1]!.budgetMs).toBeLessThanOrEqual(100);
  });

  it('When the client gives up mid-request, Then the service is told and stops the work', async () => {
    const controller = new AbortController();
    const pending = fetch(`${gateway().url}/api/flashcards/slow`, {
      method: 'POST',
      headers: auth,
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await waitFor(() => expect(work).toHaveLength(1));
    controller.abort();
    await pending;
    await waitFor(() => expect(work[0]?.stoppedBy).toBe('REQUEST_ABANDONED'), { timeoutMs: 2_000 });
  });
});

describe('load shedding at the edge', () => {
  it('When the edge is full, Then the excess is answered 503 SRV002 with Retry-After at once, probes still answer, and the held requests complete', async () => {
    const url = (path: string) => `${edgeShedding.url}${path}`;
    const admitted = [
      fetch(url('/api/flashcards/held'), { headers: auth }),
      fetch(url('/api/flashcards/held'), { headers: auth }),
      fetch(url('/api/flashcards/held'), { headers: auth }),
    ];
    await waitFor(() => expect(held).toHaveLength(3));
    const started = performance.now();
    const shed = await fetch(url('/api/users/profile'), { headers: auth });
    expect(performance.now() - started).toBeLessThan(200);
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(await shed.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    expect(stubs.seen.filter((s) => s.service === 'identity')).toHaveLength(0); // never forwarded
    expect((await fetch(url('/health/live'))).status).toBe(200);
    held.splice(0).forEach((release) => release());
    expect((await Promise.all(admitted)).map((r) => r.status)).toEqual([200, 200, 200]);
    // and the edge admits again once they are done
    expect((await fetch(url('/api/users/profile'), { headers: auth })).status).toBe(200);
  });
});
