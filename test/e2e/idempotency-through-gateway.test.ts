import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

// Issue 36 item 4: a client that lost an answer retries with the same Idempotency-Key and must not
// create twice. The app's calls go through the gateway as the app makes them; the flashcards service
// sits behind a pass-through the test can hold (a request still running when its retry arrives) or
// make fail (a 5xx, which is never replayed).
jest.setTimeout(120_000);

/** Forwards to the flashcards service; POSTs can be held until released, or answered 503. */
function flashcardsFront() {
  let target = '';
  let mode: 'pass' | 'hold' | 'fail' = 'pass';
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const forward = () => {
      const upstream = http.request(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.method !== 'POST' || mode === 'pass') return forward();
    if (mode === 'hold') return void held.push(forward);
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ success: false, error: 'The flashcards service is unavailable' }));
  });
  return {
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    pointAt: (url: string) => (target = url),
    set: (m: typeof mode) => (mode = m),
    held: () => held.length,
    releaseAll: () => held.splice(0).forEach((go) => go()),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const front = flashcardsFront();
let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  const frontUrl = await front.start();
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }), {
    FLASHCARDS_HTTP_URL: frontUrl,
  });
  front.pointAt(stack.services.flashcards.httpUrl);
});
afterAll(async () => {
  front.releaseAll();
  await stopAndDrop(stack);
  await front.stop();
});
afterEach(() => {
  front.set('pass');
  front.releaseAll();
});

async function learner() {
  const u = newCredentials('i');
  const res = await call('POST', '/api/v1/auth/register', { body: u });
  expect(res.status).toBe(201);
  const token = res.body.data.accessToken as string;
  const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'Idempotent' } });
  expect(set.status).toBe(201);
  return { ...u, token, setId: set.body.data.set.id as string };
}

const keyed = (key: string) => ({ 'idempotency-key': key });

async function wordsOf(token: string, setId: string): Promise<string[]> {
  const set = await call('GET', `/api/flashcard-sets/${setId}`, { token });
  expect(set.status).toBe(200);
  return (set.body.data.cards as { word: string }[]).map((c) => c.word).sort();
}

describe('Idempotency-Key through the gateway', () => {
  it('When a card is created twice with one key, Then one card exists and the retry gets the first answer, marked replayed', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const body = { word: 'kettle', translation: 'Wasserkocher', setId };
    const first = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.body).toEqual(first.body);
    expect(await wordsOf(token, setId)).toEqual(['kettle']);
  });

  it('When the retry arrives while the first request still runs, Then it gets 409 with Retry-After and the first completes once', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const body = { word: 'ladle', translation: 'Schöpfkelle', setId };
    front.set('hold');
    const first = call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    await waitFor(() => expect(front.held()).toBe(1));
    const second = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.body).toEqual({
      success: false,
      error: 'A request with this Idempotency-Key is still in progress',
    });
    front.releaseAll();
    expect((await first).status).toBe(201);
    const third = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(await wordsOf(token, setId)).toEqual(['ladle']);
  });

  it('When the client gives up while its request still runs, Then the key stays held: a retry gets 409, not a second run beside the first', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const body = JSON.stringify({ word: 'colander', translation: 'Sieb', setId });
    front.set('hold');
    const gaveUp = new AbortController();
    const first = fetch(`${stack.gateway.url}/api/flashcards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...keyed(key) },
      body,
      signal: gaveUp.signal,
    }).catch(() => undefined);
    await waitFor(() => expect(front.held()).toBe(1));
    gaveUp.abort();
    await first;
    const retry = await call('POST', '/api/flashcards', {
      token,
      body: JSON.parse(body),
      headers: keyed(key),
    });
    expect(retry.status).toBe(409);
    expect(retry.headers.get('retry-after')).toBe('1');
    expect(front.held()).toBe(1);
  });

  it('When one key is sent again with a different body, Then 422 and nothing more is created', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const first = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'whisk', translation: 'Schneebesen', setId },
      headers: keyed(key),
    });
    expect(first.status).toBe(201);
    const other = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'sieve', translation: 'Sieb', setId },
      headers: keyed(key),
    });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      success: false,
      error: 'This Idempotency-Key was already used for this operation with a different request body',
    });
    expect(await wordsOf(token, setId)).toEqual(['whisk']);
  });

  it('When the first answer is a 5xx, Then it is not kept: the retry with the key runs the operation', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const body = { word: 'grater', translation: 'Reibe', setId };
    front.set('fail');
    const failed = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(failed.status).toBe(503);
    front.set('pass');
    const retried = await call('POST', '/api/flashcards', { token, body, headers: keyed(key) });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await wordsOf(token, setId)).toEqual(['grater']);
  });

  it('When another user sends the same key and body, Then the keys are independent: each gets a card of its own', async () => {
    const a = await learner();
    const b = await learner();
    const key = randomUUID();
    const body = (setId: string) => ({ word: 'pan', translation: 'Pfanne', setId });
    const first = await call('POST', '/api/flashcards', {
      token: a.token,
      body: body(a.setId),
      headers: keyed(key),
    });
    const second = await call('POST', '/api/flashcards', {
      token: b.token,
      body: body(b.setId),
      headers: keyed(key),
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.card.id).not.toBe(first.body.data.card.id);
    expect(await wordsOf(b.token, b.setId)).toEqual(['pan']);
  });

  it('When a body-less POST is retried with its key, Then the retry is replayed instead of acting again (a favourite toggles once)', async () => {
    const { token } = await learner();
    const created = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'pot', translation: 'Topf', definition: 'a deep round container', difficultyLevel: 'A1' },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const key = randomUUID();
    const first = await call('POST', `/api/flashcards/${id}/favorite`, { token, headers: keyed(key) });
    const second = await call('POST', `/api/flashcards/${id}/favorite`, { token, headers: keyed(key) });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await call('GET', `/api/flashcards/${id}`, { token })).body.data.isFavorite).toBe(true);
  });

  it('When a multipart import is sent again with its key (a new boundary), Then the retry is replayed and nothing is imported twice', async () => {
    const { token, setId } = await learner();
    const key = randomUUID();
    const form = () => {
      const f = new FormData();
      f.append('setId', setId);
      f.append('format', 'csv');
      f.append('duplicateStrategy', 'create');
      f.append(
        'file',
        new Blob(['word,translation\r\nspoon,Löffel\r\nfork,Gabel\r\n'], { type: 'text/csv' }),
        'cutlery.csv',
      );
      return f;
    };
    const first = await call('POST', '/api/import/cards', { token, raw: form(), headers: keyed(key) });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ imported: 2, created: 2 });
    const second = await call('POST', '/api/import/cards', { token, raw: form(), headers: keyed(key) });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await wordsOf(token, setId)).toEqual(['fork', 'spoon']);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not printable', 'abc\tdef'],
  ])(
    'When the key is %s, Then 400 in the path’s error envelope and nothing is created',
    async (_what, key) => {
      const { token, setId } = await learner();
      const res = await call('POST', '/api/v1/dialogues', { token, body: {}, headers: keyed(key) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', details: { 'Idempotency-Key': [expect.any(String)] } },
      });
      const card = await call('POST', '/api/flashcards', {
        token,
        body: { word: 'jug', translation: 'Krug', setId },
        headers: keyed(key),
      });
      expect(card.status).toBe(400);
      expect(await wordsOf(token, setId)).toEqual([]);
    },
  );

  it('When a guest signs up twice with one key, Then the key is not honoured (public operations keep nothing): the second is a conflict', async () => {
    const u = newCredentials('i');
    const key = randomUUID();
    const first = await call('POST', '/api/v1/auth/register', { body: u, headers: keyed(key) });
    expect(first.status).toBe(201);
    const second = await call('POST', '/api/v1/auth/register', { body: u, headers: keyed(key) });
    expect(second.status).toBe(409);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('When a client reads /openapi.json, Then every POST and PATCH that honours the key documents the Idempotency-Key header and its 409 and 422', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ in: 'header', name: 'Idempotency-Key' });
    const ref = { $ref: '#/components/parameters/IdempotencyKey' };
    const post = doc.paths['/api/flashcards'].post;
    expect(post.parameters).toContainEqual(ref);
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['409', '422']));
    expect(doc.paths['/api/import/cards'].post.parameters).toContainEqual(ref);
    // public operations do not take it
    expect(doc.paths['/api/v1/auth/register'].post.parameters ?? []).not.toContainEqual(ref);
  });
});
