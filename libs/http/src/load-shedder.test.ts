import { Writable } from 'node:stream';
import { createLogger } from '@lingua/logger';
import { waitFor } from '@lingua/testing';
import { createApp, finishApp } from './create-app';
import { sendSuccess } from './envelopes';
import { createLoadShedder, type LoadShedder } from './load-shedder';
import { startHttpServer, type RunningHttpServer } from './start-http-server';

const silent = createLogger('shed-test', {
  level: 'silent',
  destination: new Writable({ write: (_c, _e, cb) => cb() }),
});

let srv: RunningHttpServer;
let shedder: LoadShedder;
/** Requests held in the app until the test lets them go, and how many requests the app saw at all. */
const held: (() => void)[] = [];
let handled = 0;

beforeAll(async () => {
  const app = createApp({ logger: silent });
  app.use((_req, _res, next) => {
    handled++;
    next();
  });
  app.all('/api/flashcards/hold', async (_req, res) => {
    await new Promise<void>((resolve) => held.push(resolve));
    sendSuccess(res, { done: true });
  });
  app.get('/api/flashcards/quick', (_req, res) => sendSuccess(res, { ok: true }));
  app.get('/health/ready', (_req, res) => void res.json({ ready: true }));
  finishApp(app, silent);
  // a fixed limit of 5 (4 for writes: a fifth is kept for cheap reads), latency never "too high"
  shedder = createLoadShedder({
    initialLimit: 5,
    minLimit: 5,
    maxLimit: 5,
    targetLatencyMs: 60_000,
    maxEventLoopDelayMs: 60_000,
  });
  srv = await startHttpServer(app, { port: 0, shedder });
});

afterAll(async () => {
  held.splice(0).forEach((release) => release());
  await srv.close();
});

const url = (path: string) => `${srv.url}${path}`;

describe('load shedding', () => {
  it('When the limit is reached, Then writes are shed first, reads next, health never; shed answers are 503 SRV002 with Retry-After, at once and without work', async () => {
    const writes = Array.from({ length: 4 }, () => fetch(url('/api/flashcards/hold'), { method: 'POST' }));
    await waitFor(() => expect(held).toHaveLength(4));
    expect(shedder.stats.inFlight).toBe(4);

    const seenBefore = handled;
    const started = performance.now();
    const shedWrite = await fetch(url('/api/flashcards/hold'), { method: 'POST' });
    const shedMs = performance.now() - started;
    expect(shedWrite.status).toBe(503);
    expect(shedWrite.headers.get('retry-after')).toBe('1');
    expect(await shedWrite.json()).toEqual({
      success: false,
      error: 'The server is busy; try again shortly',
    });
    expect(shedMs).toBeLessThan(200);
    expect(handled).toBe(seenBefore); // refused before the app saw it

    // a cheap read still fits in the reserve; then reads are shed too
    const read = fetch(url('/api/flashcards/hold'));
    await waitFor(() => expect(held).toHaveLength(5));
    const shedRead = await fetch(url('/api/flashcards/quick'));
    expect(shedRead.status).toBe(503);
    const catalogue = await fetch(url('/api/users/profile'));
    expect(catalogue.status).toBe(503);
    expect(await catalogue.json()).toMatchObject({ success: false, error: { code: 'SRV002' } });

    // probes are never shed
    expect((await fetch(url('/health/ready'))).status).toBe(200);
    expect(shedder.stats.shed).toBe(3);

    held.splice(0).forEach((release) => release());
    expect((await Promise.all([...writes, read])).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await waitFor(() => expect(shedder.stats.inFlight).toBe(0));
    expect((await fetch(url('/api/flashcards/quick'))).status).toBe(200);
  });
});

describe('adaptive limit', () => {
  it('When requests finish slower than the target, Then the limit shrinks; When they are fast and the limit is used, Then it grows back', async () => {
    const limiter = createLoadShedder({
      initialLimit: 20,
      minLimit: 2,
      maxLimit: 40,
      targetLatencyMs: 50,
      maxEventLoopDelayMs: 60_000,
      windowMs: 20,
    });
    try {
      const slowWindow = () => {
        const releases = Array.from({ length: 3 }, () => limiter.tryAcquire('normal'));
        releases.forEach((release) => release?.(500, false));
      };
      slowWindow();
      await waitFor(() => {
        slowWindow();
        expect(limiter.stats.limit).toBeLessThanOrEqual(5);
      });
      // fast answers with the limit in use: it climbs again
      await waitFor(() => {
        const n = Math.ceil(limiter.stats.limit);
        const releases = Array.from({ length: n }, () => limiter.tryAcquire('read')).filter(
          (r) => r !== undefined,
        );
        releases.forEach((release) => release(1, false));
        expect(limiter.stats.limit).toBeGreaterThanOrEqual(10);
      });
      // answers that were timeouts or sheds below count as congestion, however fast
      const before = limiter.stats.limit;
      await waitFor(() => {
        limiter.tryAcquire('read')!(1, true);
        expect(limiter.stats.limit).toBeLessThan(before);
      });
    } finally {
      limiter.stop();
    }
  });
});
