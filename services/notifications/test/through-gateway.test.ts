import { Webhook } from 'standardwebhooks';
import type { RunningService } from '@lingua/bootstrap';
import { isolatedServiceEnv } from '@lingua/testing';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { call, stopAndDrop, publish, startNotifications, startReceiver, tokenFor, waitFor } from './support';

jest.setTimeout(120_000);

// The mobile app's path: gateway → notifications service, events over NATS, webhook to a receiver.
let service: RunningService;
let gateway: RunningGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  const env = isolatedServiceEnv();
  ({ service } = await startNotifications({}, env));
  gateway = await startGateway(
    loadGatewayConfig({ ...env, GATEWAY_PORT: '0', NOTIFICATIONS_HTTP_URL: service.httpUrl }),
    { logger: service.deps.logger },
  );
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gateway?.stop();
  await stopAndDrop(service);
});

describe('notifications through the gateway', () => {
  it('When a user registers a webhook and an event about them happens, Then the app sees the notification and the webhook arrives signed', async () => {
    const user = tokenFor(service);
    const base = gateway.url;
    const created = await call(service, 'POST', '/api/webhooks', {
      base,
      headers: user.auth,
      body: { url: receiver.url, events: ['achievement.unlocked'] },
    });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };

    const event = await publish(service, 'achievement.unlocked', {
      userId: user.sub,
      achievementId: 'streak-30',
      name: '30-day streak',
      xp: 300,
    });

    await waitFor(async () => {
      const list = await call(service, 'GET', '/api/notifications?unreadOnly=true', {
        base,
        headers: user.auth,
      });
      expect(list.status).toBe(200);
      expect(list.body.data.notifications).toEqual([
        expect.objectContaining({ type: 'achievement', title: 'Achievement unlocked: 30-day streak' }),
      ]);
    });
    await waitFor(() => expect(receiver.received).toHaveLength(1));
    const { headers, body } = receiver.received[0]!;
    expect(
      new Webhook(secret).verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).toMatchObject({ event: 'achievement.unlocked', data: event.data });

    await waitFor(async () => {
      const deliveries = await call(service, 'GET', `/api/webhooks/${id}/deliveries`, {
        base,
        headers: user.auth,
      });
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.data.deliveries[0]).toMatchObject({
        eventId: event.id,
        status: 'succeeded',
        attempts: 1,
      });
    });

    const readAll = await call(service, 'PUT', '/api/notifications/read-all', { base, headers: user.auth });
    expect(readAll.body.data).toEqual({ updated: 1, unreadCount: 0 });
  });

  it('When no token is sent through the gateway, Then the answer is 401 in the Group C envelope', async () => {
    const res = await call(service, 'GET', '/api/notifications', { base: gateway.url });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: { code: expect.stringMatching(/^AUTH00/) } });
  });
});
