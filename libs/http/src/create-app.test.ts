import { Writable } from 'node:stream';
import { z } from 'zod';
import { AppError, parseInput } from '@lingua/errors';
import { createLogger } from '@lingua/logger';
import { waitFor } from '@lingua/testing';
import { createApp, finishApp } from './create-app';
import { sendSuccess } from './envelopes';
import { startHttpServer, type RunningHttpServer } from './start-http-server';

const silent = createLogger('http-test', {
  level: 'silent',
  destination: new Writable({ write: (_c, _e, cb) => cb() }),
});

let srv: RunningHttpServer;

beforeAll(async () => {
  const app = createApp({ logger: silent, jsonLimit: '1kb' });
  app.post('/api/v1/auth/register', (req, res) => {
    parseInput(z.object({ email: z.email() }), req.body);
    sendSuccess(res, { ok: true }, { status: 201, message: 'created' });
  });
  app.get('/api/v1/subscriptions/status', () => {
    throw new AppError('SUBSCRIPTION_NOT_FOUND', 'No subscription');
  });
  app.get('/api/flashcards/:id', () => {
    throw new AppError('NOT_FOUND', 'Flashcard not found');
  });
  app.get('/api/users/profile', () => {
    throw new AppError('TOKEN_EXPIRED', 'Token expired');
  });
  app.get('/api/boom', () => {
    throw new Error('database password is hunter2');
  });
  app.get('/api/outage', () => {
    // what the MongoDB driver throws when no server answers, wrapped by a repository
    const driverError = Object.assign(new Error('Server selection timed out after 3000 ms'), {
      name: 'MongoServerSelectionError',
    });
    throw new Error('cannot load the card', { cause: driverError });
  });
  app.post('/api/echo', (req, res) => sendSuccess(res, req.body));
  finishApp(app, silent);
  srv = await startHttpServer(app, { port: 0 });
});

afterAll(() => srv.close());

const call = (path: string, init?: RequestInit) => fetch(`${srv.url}${path}`, init);
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('createApp envelopes and errors', () => {
  it('When a Group A auth route succeeds, Then the envelope has meta.requestId, timestamp and api_version', async () => {
    const res = await post('/api/v1/auth/register', JSON.stringify({ email: 'a@b.co' }), {
      'x-request-id': 'abc-123',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(res.headers.get('x-correlation-id')).toBe('abc-123');
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      data: { ok: true },
      message: 'created',
      meta: { requestId: 'abc-123', api_version: 'v1' },
    });
    expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp);
  });

  it('When validation fails on an auth route, Then 400 VALIDATION_ERROR with field details', async () => {
    const res = await post('/api/v1/auth/register', JSON.stringify({ email: 'x' }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', details: { email: [expect.any(String)] } },
    });
  });

  it('When a shared-format route fails, Then data is null and meta uses request_id', async () => {
    const res = await call('/api/v1/subscriptions/status', { headers: { 'x-correlation-id': 'corr-9' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-correlation-id')).toBe('corr-9');
    const body = await res.json();
    expect(body).toMatchObject({
      success: false,
      data: null,
      message: 'No subscription',
      error: { code: 'SUBSCRIPTION_NOT_FOUND' },
    });
    expect(body.meta.request_id).toEqual(expect.any(String));
  });

  it('When a Group B route fails, Then the error is plain text', async () => {
    const res = await call('/api/flashcards/123');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: 'Flashcard not found' });
  });

  it('When a Group C route fails, Then the catalogue code is used', async () => {
    const res = await call('/api/users/profile');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'AUTH002', message: 'Token expired' },
    });
  });

  it('When a handler throws an unexpected error, Then 500 SRV001 without internals', async () => {
    const res = await call('/api/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/hunter2/);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'SRV001', message: 'Internal server error' } });
  });

  it('When a dependency is unreachable, Then 503 SRV002 with Retry-After, not a 500', async () => {
    const res = await call('/api/outage');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const text = await res.text();
    expect(text).not.toMatch(/selection/);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'SRV002' } });
  });

  it('When the body is malformed JSON or too large, Then 400 and 413 rather than 500', async () => {
    expect((await post('/api/echo', '{"a":')).status).toBe(400);
    const big = await post('/api/echo', JSON.stringify({ s: 'x'.repeat(5000) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: 'VAL002' } });
  });

  it('When the route does not exist, Then 404 in the family envelope', async () => {
    const res = await call('/api/nowhere');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'RES001' } });
  });

  it('When a client sends an unsafe request id, Then a fresh one is generated', async () => {
    const res = await post('/api/echo', '{}', { 'x-request-id': 'bad id <script>' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

interface AccessLine {
  msg: string;
  level: string;
  method?: string;
  path?: string;
  status?: number;
  ms?: number;
  request_id?: string;
  correlation_id?: string;
  sampled?: number;
}

/** A server built by createApp whose log lines are collected. */
function loggedServer(options: { accessLogSampleRate?: number; level?: string }) {
  const lines: AccessLine[] = [];
  const logger = createLogger('http-access-test', {
    level: options.level ?? 'info',
    destination: new Writable({
      write: (chunk: Buffer, _e, cb) => {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    }),
  });
  const app = createApp({
    logger,
    ...(options.accessLogSampleRate !== undefined && { accessLogSampleRate: options.accessLogSampleRate }),
  });
  app.get('/api/ok', (_req, res) => sendSuccess(res, { ok: true }));
  finishApp(app, logger);
  return { lines, start: () => startHttpServer(app, { port: 0 }) };
}

const accessLines = (lines: AccessLine[]) => lines.filter((l) => l.msg === 'request');
/** Waits (with a deadline, failing on it) until the predicate holds. */
const until = (pred: () => boolean) => waitFor(() => expect(pred()).toBe(true), { timeoutMs: 5_000 });

describe('createApp access log', () => {
  it('When a request finishes, Then one line gives method, path, status, time and ids, and no header', async () => {
    const { lines, start } = loggedServer({});
    const srv = await start();
    try {
      const secret = 'Bearer eyJhbGciOiJIUzI1NiJ9.secret-token';
      const ok = await fetch(`${srv.url}/api/ok?x=1`, {
        headers: { authorization: secret, cookie: 'sid=secret-cookie', 'x-correlation-id': 'corr-1' },
      });
      expect(ok.status).toBe(200);
      expect((await fetch(`${srv.url}/health`)).status).toBe(404); // quiet path: no line even on failure
      // a later logged request is the signal that the quiet one's line, had it been written, is there
      expect((await fetch(`${srv.url}/api/marker`)).status).toBe(404);
      await until(() => accessLines(lines).some((l) => l.path === '/api/marker'));
      expect(accessLines(lines).filter((l) => l.path !== '/api/marker')).toEqual([
        expect.objectContaining({
          level: 'info',
          method: 'GET',
          path: '/api/ok',
          status: 200,
          request_id: ok.headers.get('x-request-id'),
          correlation_id: 'corr-1',
        }),
      ]);
      expect(accessLines(lines)[0]!.ms).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(lines)).not.toMatch(/secret-token|secret-cookie/);
    } finally {
      await srv.close();
    }
  });

  it('When the sample rate is 0, Then successes leave no access line and failures still do', async () => {
    const { lines, start } = loggedServer({ accessLogSampleRate: 0 });
    const srv = await start();
    try {
      expect((await fetch(`${srv.url}/api/ok`)).status).toBe(200);
      expect((await fetch(`${srv.url}/api/missing`)).status).toBe(404);
      await until(() => accessLines(lines).some((l) => l.status === 404));
      expect(accessLines(lines)).toEqual([
        expect.objectContaining({ level: 'warn', path: '/api/missing', status: 404 }),
      ]);
    } finally {
      await srv.close();
    }
  });

  it('When the log level is warn, Then successes leave no line and failures still do', async () => {
    const { lines, start } = loggedServer({ level: 'warn' });
    const srv = await start();
    try {
      expect((await fetch(`${srv.url}/api/ok`)).status).toBe(200);
      expect((await fetch(`${srv.url}/api/missing`)).status).toBe(404);
      await until(() => accessLines(lines).some((l) => l.status === 404));
      expect(accessLines(lines).map((l) => [l.path, l.status])).toEqual([['/api/missing', 404]]);
    } finally {
      await srv.close();
    }
  });
});
