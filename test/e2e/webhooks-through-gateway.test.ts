import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// A developer's webhook endpoint, managed through the gateway with the access token of the account
// it belongs to, delivering to a receiver on loopback: registration, updates, the signed test event,
// a delivery's log and replay, a secret rotation (two signatures meanwhile), a receiver that answers
// 410 Gone (the endpoint is disabled and the delivery dead-lettered), re-enabling and replaying the
// failed deliveries, and the endpoint's removal.
jest.setTimeout(120_000);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let stack: InProcessStack;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let answer = 200;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer).end(answer === 200 ? 'ok' : 'gone');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      // the receiver is on loopback (refused in production)
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_MS: '100',
    }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  receiver?.closeAllConnections();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { event: string; data: Record<string, unknown> };

/** The deliveries the receiver got with this webhook-id. */
const arrived = (webhookId: string) => received.filter((r) => r.headers['webhook-id'] === webhookId);

describe('webhooks through the gateway', () => {
  it('When a developer manages an endpoint and its deliveries, Then each operation answers as documented and the receiver gets signed deliveries', async () => {
    const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('wh') });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const userId = reg.body.data.userId as string;

    const created = await call('POST', '/api/webhooks', {
      token,
      body: { url: receiverUrl, events: ['achievement.unlocked'], description: 'CRM sync' },
    });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    const path = `/api/webhooks/${id}`;

    const got = await call('GET', path, { token });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      id,
      url: receiverUrl,
      ownerId: userId,
      enabled: true,
      scope: 'own',
    });
    expect(got.body.data.secret).toBeUndefined();

    const patched = await call('PATCH', path, { token, body: { description: 'CRM sync (staging)' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      id,
      description: 'CRM sync (staging)',
      events: ['achievement.unlocked'],
    });
    const put = await call('PUT', path, {
      token,
      body: {
        url: receiverUrl,
        events: ['achievement.unlocked', 'subscription.updated'],
        description: 'CRM',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      id,
      description: 'CRM',
      events: ['achievement.unlocked', 'subscription.updated'],
    });

    // the signed test event reaches the receiver and its delivery is logged
    const test = await call('POST', `${path}/test`, { token });
    expect(test.status).toBe(202);
    const delivery = test.body.data as { id: string; eventId: string };
    expect(test.body.data).toMatchObject({ endpointId: id, event: 'webhook.test' });
    await waitFor(() => expect(arrived(delivery.eventId)).toHaveLength(1), { timeoutMs: 20_000 });
    expect(verify(secret, arrived(delivery.eventId)[0]!)).toMatchObject({
      event: 'webhook.test',
      data: { endpointId: id },
    });
    const logged = await waitFor(
      async () => {
        const d = await call('GET', `${path}/deliveries/${delivery.id}`, { token });
        expect(d.status).toBe(200);
        expect(d.body.data).toMatchObject({ id: delivery.id, status: 'succeeded', attempts: 1 });
        return d.body.data;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(logged.attemptLog).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200 })]);
    expect(logged.payload).toMatchObject({ event: 'webhook.test' });

    // a replay sends the same webhook-id again
    const replay = await call('POST', `${path}/deliveries/${delivery.id}/replay`, { token });
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ id: delivery.id, status: 'pending', replays: 1 });
    await waitFor(() => expect(arrived(delivery.eventId)).toHaveLength(2), { timeoutMs: 20_000 });

    // rotation: the new secret signs, and the previous one still does for 24 hours
    const rotated = await call('POST', `${path}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.data.secret).not.toBe(secret);
    const expires = new Date(rotated.body.data.previousSecretExpiresAt).getTime();
    expect(expires - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const afterRotation = await call('POST', `${path}/test`, { token });
    expect(afterRotation.status).toBe(202);
    await waitFor(() => expect(arrived(afterRotation.body.data.eventId)).toHaveLength(1), {
      timeoutMs: 20_000,
    });
    const signed = arrived(afterRotation.body.data.eventId)[0]!;
    expect(String(signed.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated.body.data.secret, signed).event).toBe('webhook.test');
    expect(verify(secret, signed).event).toBe('webhook.test');

    // the receiver is gone: the delivery is dead-lettered and the endpoint disabled
    answer = 410;
    const gone = await call('POST', `${path}/test`, { token });
    expect(gone.status).toBe(202);
    await waitFor(
      async () => {
        const d = await call('GET', `${path}/deliveries/${gone.body.data.id}`, { token });
        expect(d.body.data).toMatchObject({ status: 'failed', attempts: 1 });
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect((await call('GET', path, { token })).body.data).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });

    // back up: the owner re-enables the endpoint and replays what failed
    answer = 200;
    const enabled = await call('PATCH', path, { token, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null });
    const replayFailed = await call('POST', `${path}/deliveries/replay-failed`, { token });
    expect(replayFailed.status).toBe(202);
    expect(replayFailed.body.data).toEqual({ replayed: 1 });
    await waitFor(
      async () => {
        const d = await call('GET', `${path}/deliveries/${gone.body.data.id}`, { token });
        expect(d.body.data).toMatchObject({ status: 'succeeded', replays: 1 });
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(arrived(gone.body.data.eventId).length).toBe(2);

    const removed = await call('DELETE', path, { token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ id, deleted: true });
    expect((await call('GET', path, { token })).status).toBe(404);
  });
});
