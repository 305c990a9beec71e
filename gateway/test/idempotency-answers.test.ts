import type { RunningGateway } from '../src/server';
import { ADMIN, bearer, gatewayWith, Stubs, stubServices, USER } from './harness';

// Which answers the gateway keeps for an Idempotency-Key (docs/adr/0024), against stub services that
// echo what they received: an answer over IDEMPOTENCY_MAX_ANSWER_BYTES is not kept (the key is
// released, a retry runs again), one within it is replayed.
const stubs = new Stubs();
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await gatewayWith({ ...(await stubServices(stubs)), IDEMPOTENCY_MAX_ANSWER_BYTES: '1024' });
});

afterAll(async () => {
  await gateway.stop();
  stubs.close();
});

/** A keyed POST; the stub echoes the URL, so a long query makes a long answer. */
const post = (key: string, pad: number) =>
  fetch(`${gateway.url}/api/flashcard-sets?pad=${'x'.repeat(pad)}`, {
    method: 'POST',
    headers: { authorization: bearer(), 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ name: 'Kitchen' }),
  });

describe('answers kept for an Idempotency-Key', () => {
  it('When the answer is larger than the limit, Then it is not kept: the retry reaches the service again, unmarked', async () => {
    const seen = stubs.seen.length;
    const first = await post('big', 2_000);
    expect(first.status).toBe(200);
    expect((await first.text()).length).toBeGreaterThan(1024);
    const retry = await post('big', 2_000);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(stubs.seen.length).toBe(seen + 2);
  });

  it('When the answer is within the limit, Then the retry is the kept answer and the service is not asked again', async () => {
    const seen = stubs.seen.length;
    const first = await post('small', 10);
    const retry = await post('small', 10);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
    expect(stubs.seen.length).toBe(seen + 1);
  });

  const send = (method: string, path: string, headers: Record<string, string>) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ enabled: false }),
    });

  it('When a PATCH is retried with its key, Then it is replayed too; the same key on another path is another request', async () => {
    const seen = stubs.seen.length;
    const headers = { authorization: bearer(USER), 'idempotency-key': 'patch-1' };
    await send('PATCH', '/api/webhooks/w-1', headers);
    const retry = await send('PATCH', '/api/webhooks/w-1', headers);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(stubs.seen.length).toBe(seen + 1);
    const elsewhere = await send('PATCH', '/api/webhooks/w-2', headers);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(stubs.seen.length).toBe(seen + 2);
  });

  it('When an API key sends a key a user also used, Then each has its own: the API key call reaches the service and its retry is replayed', async () => {
    const issued = await fetch(`${gateway.url}/api/v1/admin/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: bearer(ADMIN) },
      body: JSON.stringify({ name: 'Sync job', client_id: 'sync-job', scopes: ['*'] }),
    });
    expect(issued.status).toBe(201);
    const secret = ((await issued.json()) as { data: { api_key: string } }).data.api_key;
    const seen = stubs.seen.length;
    await send('POST', '/api/flashcard-sets', { authorization: bearer(USER), 'idempotency-key': 'shared' });
    const asKey = { 'x-api-key': secret, 'x-client-id': 'sync-job', 'idempotency-key': 'shared' };
    const first = await send('POST', '/api/flashcard-sets', asKey);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await send('POST', '/api/flashcard-sets', asKey);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(stubs.seen.length).toBe(seen + 2);
  });
});
