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
  // windows are ended by hand (the timer's window is a minute), so each step is exact
  const limiterFor = () =>
    createLoadShedder({
      initialLimit: 20,
      minLimit: 2,
      maxLimit: 40,
      targetLatencyMs: 50,
      maxEventLoopDelayMs: 60_000,
      windowMs: 60_000,
    });
  /** One window in which `n` requests were in flight at once and finished after `latencyMs`. */
  const windowOf = (limiter: LoadShedder, n: number, latencyMs: number, congested = false) => {
    const releases = Array.from({ length: n }, () => limiter.tryAcquire('read'));
    releases.forEach((release) => release?.(latencyMs, congested));
    limiter.endWindow();
  };

  it('When one window is slow, Then nothing changes (a burst is absorbed); When two in a row are, Then the limit drops to four fifths of what was in use', () => {
    const limiter = limiterFor();
    try {
      windowOf(limiter, 10, 500);
      expect(limiter.stats.limit).toBe(20);
      windowOf(limiter, 10, 500);
      expect(limiter.stats.limit).toBe(8); // 10 in use × 0.8
      windowOf(limiter, 8, 500);
      windowOf(limiter, 8, 500);
      expect(limiter.stats.limit).toBeLessThanOrEqual(6);
    } finally {
      limiter.stop();
    }
  });

  it('When a window passes with no request, Then the timer stops until the next request arrives (an idle process is not woken)', () => {
    jest.useFakeTimers();
    const limiter = createLoadShedder({
      initialLimit: 20,
      minLimit: 2,
      maxLimit: 40,
      targetLatencyMs: 50,
      maxEventLoopDelayMs: 60_000,
      windowMs: 250,
    });
    try {
      expect(jest.getTimerCount()).toBe(1);
      limiter.tryAcquire('read')?.(1, false);
      jest.advanceTimersByTime(250); // a window with a request: the timer keeps running
      expect(jest.getTimerCount()).toBe(1);
      jest.advanceTimersByTime(250); // an empty one: it stops
      expect(jest.getTimerCount()).toBe(0);
      jest.advanceTimersByTime(10_000);
      const release = limiter.tryAcquire('normal');
      expect(jest.getTimerCount()).toBe(1);
      jest.advanceTimersByTime(1_000); // one still in flight: windows go on
      expect(jest.getTimerCount()).toBe(1);
      release?.(1, false);
      jest.advanceTimersByTime(500);
      expect(jest.getTimerCount()).toBe(0);
      limiter.stop();
      limiter.tryAcquire('read')?.(1, false);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      limiter.stop();
      jest.useRealTimers();
    }
  });

  it('When answers are fast and the limit is in use, Then it grows by one a window; When unused, Then it stays', () => {
    const limiter = limiterFor();
    try {
      windowOf(limiter, 20, 1);
      windowOf(limiter, 21, 1);
      expect(limiter.stats.limit).toBe(22);
      windowOf(limiter, 3, 1);
      expect(limiter.stats.limit).toBe(22);
    } finally {
      limiter.stop();
    }
  });

  it('When answers from below were 503/504 two windows running, Then the limit drops however fast they were', () => {
    const limiter = limiterFor();
    try {
      windowOf(limiter, 10, 1, true);
      windowOf(limiter, 10, 1, true);
      expect(limiter.stats.limit).toBe(8);
      // down towards the minimum, never below it
      for (let i = 0; i < 20; i++) windowOf(limiter, 10, 1, true);
      expect(limiter.stats.limit).toBeGreaterThanOrEqual(2);
      expect(limiter.stats.limit).toBeLessThanOrEqual(3);
    } finally {
      limiter.stop();
    }
  });

  it('When answers are slow with no more in flight than the minimum, Then the limit stays (the queue is not here)', () => {
    const limiter = limiterFor();
    try {
      for (let i = 0; i < 5; i++) windowOf(limiter, 2, 5_000);
      expect(limiter.stats.limit).toBe(20);
    } finally {
      limiter.stop();
    }
  });
});
