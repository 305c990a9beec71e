import http from 'node:http';
import { Writable } from 'node:stream';
import { createLogger, currentRequestContext, remainingMs } from '@lingua/logger';
import { waitFor } from '@lingua/testing';
import { createApp, finishApp } from './create-app';
import { sendSuccess } from './envelopes';
import { startHttpServer, type RunningHttpServer } from './start-http-server';

const silent = createLogger('deadline-test', {
  level: 'silent',
  destination: new Writable({ write: (_c, _e, cb) => cb() }),
});

/** What the slow route saw: its budget at the start, and why its work was told to stop. */
const seen: { budgetMs?: number; abortedBy?: string; handlerEnded?: boolean }[] = [];
let srv: RunningHttpServer;

beforeAll(async () => {
  const app = createApp({ logger: silent, deadline: { defaultMs: 2_000, maxMs: 5_000 } });
  // work that only ends when it is told to stop, as a long database call or gRPC call would
  app.get('/api/slow', async (_req, res) => {
    const entry: (typeof seen)[number] = { budgetMs: remainingMs() };
    seen.push(entry);
    const signal = currentRequestContext()!.signal!;
    await new Promise<void>((resolve) =>
      signal.addEventListener('abort', () => {
        entry.abortedBy = (signal.reason as { code?: string }).code;
        resolve();
      }),
    );
    entry.handlerEnded = true;
    sendSuccess(res, { late: true }); // too late: must not reach anyone, nor crash anything
  });
  app.get('/api/fast', (_req, res) => sendSuccess(res, { budgetMs: remainingMs() }));
  finishApp(app, silent);
  srv = await startHttpServer(app, { port: 0 });
});

afterAll(() => srv.close());

beforeEach(() => (seen.length = 0));

describe('request deadlines', () => {
  it('When the caller gives 300 ms and the work takes longer, Then 504 SRV002 comes at the deadline and the work is told to stop', async () => {
    const started = performance.now();
    const res = await fetch(`${srv.url}/api/slow`, { headers: { 'x-request-timeout-ms': '300' } });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1_500);
    await waitFor(() =>
      expect(seen[0]).toMatchObject({ abortedBy: 'DEADLINE_EXCEEDED', handlerEnded: true }),
    );
    expect(seen[0]!.budgetMs).toBeLessThanOrEqual(300);
    // the connection still serves the next request: the late answer did not break it
    expect((await fetch(`${srv.url}/api/fast`)).status).toBe(200);
  });

  it('When no deadline is sent, Then the default applies; When more than the maximum is asked, Then the maximum', async () => {
    const plain = await (await fetch(`${srv.url}/api/fast`)).json();
    expect(plain.data.budgetMs).toBeGreaterThan(1_900);
    expect(plain.data.budgetMs).toBeLessThanOrEqual(2_000);
    const greedy = await (
      await fetch(`${srv.url}/api/fast`, { headers: { 'x-request-timeout-ms': '999999' } })
    ).json();
    expect(greedy.data.budgetMs).toBeLessThanOrEqual(5_000);
    expect(greedy.data.budgetMs).toBeGreaterThan(4_900);
    const junk = await (
      await fetch(`${srv.url}/api/fast`, { headers: { 'x-request-timeout-ms': 'soon' } })
    ).json();
    expect(junk.data.budgetMs).toBeLessThanOrEqual(2_000);
  });

  it('When the client disconnects mid-request, Then the work is told to stop at once, long before its deadline', async () => {
    const req = http.get(`${srv.url}/api/slow`, { headers: { 'x-request-timeout-ms': '5000' } });
    req.on('error', () => undefined);
    await waitFor(() => expect(seen).toHaveLength(1));
    const closedAt = performance.now();
    req.destroy();
    await waitFor(
      () => expect(seen[0]).toMatchObject({ abortedBy: 'REQUEST_ABANDONED', handlerEnded: true }),
      {
        timeoutMs: 2_000,
      },
    );
    expect(performance.now() - closedAt).toBeLessThan(1_000);
  });
});
