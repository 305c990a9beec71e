import { isolatedServiceEnv, startPrivateRedis } from '@lingua/testing';
import { webhookDeliveryRepository } from '../src/data-access/webhook-delivery.repository';
import { call, publish, startNotifications, startReceiver, stopAndDrop, tokenFor, waitFor } from './support';

jest.setTimeout(90_000);

// Redis is the source of truth for nothing a webhook delivery needs: the claim of an attempt (and of
// a first send) is a conditional write of the delivery document. With Redis down the hot path still
// sends at once (only the in-memory endpoint copy cannot hear of changes; it is reloaded from the
// database meanwhile).
it('When Redis is down as an event arrives, Then the webhook is still sent at once and recorded', async () => {
  const redis = await startPrivateRedis();
  const receiver = await startReceiver();
  const { service } = await startNotifications(
    {},
    isolatedServiceEnv({ REDIS_URL: `redis://127.0.0.1:${redis.port}` }),
  );
  try {
    const user = tokenFor(service);
    const ep = (
      await call(service, 'POST', '/api/webhooks', {
        headers: user.auth,
        body: { url: receiver.url, events: ['user.created'] },
      })
    ).body.data as { id: string };
    const deliveries = webhookDeliveryRepository(service.deps.mongo.connection);

    await redis.stop();
    try {
      const event = await publish(service, 'user.created', {
        userId: user.sub,
        email: 'outage@example.com',
        username: 'outage',
        authProvider: 'password',
      });
      await waitFor(() => expect(receiver.received.map((x) => x.headers['webhook-id'])).toEqual([event.id]));
      await waitFor(async () =>
        expect(await deliveries.get(`${ep.id}:${event.id}`)).toMatchObject({
          status: 'succeeded',
          attempts: 1,
        }),
      );
    } finally {
      await redis.start();
    }
  } finally {
    await stopAndDrop(service);
    await receiver.close();
    await redis.dispose();
  }
});
