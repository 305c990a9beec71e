import { isolatedServiceEnv, startPrivateRedis } from '@lingua/testing';
import { webhookDeliveryRepository } from '../src/data-access/webhook-delivery.repository';
import { call, publish, startNotifications, startReceiver, stopAndDrop, tokenFor, waitFor } from './support';

jest.setTimeout(90_000);

// Redis holds the first-send claims and the attempt leases: without it the hot path cannot be
// taken, and the event must still end up delivered, never dead-lettered.
it('When Redis is down as an event arrives, Then the delivery is stored pending and sent once Redis is back', async () => {
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
    const event = await publish(service, 'user.created', {
      userId: user.sub,
      email: 'outage@example.com',
      username: 'outage',
      authProvider: 'password',
    });
    await waitFor(async () =>
      expect(await deliveries.get(`${ep.id}:${event.id}`)).toMatchObject({ status: 'pending', attempts: 0 }),
    );
    // handled and acked on its first delivery: no failed attempt counting towards the dead-letter stream
    await waitFor(async () => {
      const info = await service.deps.nats.jsm.consumers.info(service.deps.bus.streamName, 'notifications');
      expect(info.num_ack_pending + info.num_pending).toBe(0);
      expect(info.delivered.consumer_seq).toBe(info.delivered.stream_seq); // nothing delivered twice
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(0);

    await redis.start();
    await waitFor(() => expect(receiver.received.map((x) => x.headers['webhook-id'])).toEqual([event.id]));
    await waitFor(async () =>
      expect(await deliveries.get(`${ep.id}:${event.id}`)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      }),
    );
  } finally {
    await stopAndDrop(service);
    await receiver.close();
    await redis.dispose();
  }
});
