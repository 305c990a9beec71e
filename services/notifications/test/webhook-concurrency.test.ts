import { randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { subjectFor } from '@lingua/events';
import { isolatedServiceEnv } from '@lingua/testing';
import { webhookDeliveryRepository } from '../src/data-access/webhook-delivery.repository';
import { newDelivery } from '../src/domain/fan-out-event.use-case';
import { call, startNotifications, startReceiver, stopAndDrop, tokenFor, waitFor } from './support';

jest.setTimeout(90_000);

// No Redis lease: who sends an attempt is decided by one conditional write of the delivery document
// (a claim on its version, or the insert of a first send under its unique (endpoint, event) id), see
// libs/mongo/README.md "Database guarantees we rely on".
describe('concurrent deliveries of one event', () => {
  it('When many workers claim the same attempt at once, Then exactly one gets it', async () => {
    const { service } = await startNotifications({ runWebhookWorker: false });
    try {
      const store = webhookDeliveryRepository(service.deps.mongo.connection);
      const endpoint = {
        id: randomUUID(),
        ownerId: randomUUID(),
        secrets: [{ secret: 'whsec_dGVzdA==', createdAt: new Date(), expiresAt: null }],
      };
      const event = makeEvent('user.deleted', { userId: endpoint.ownerId });
      const pending = newDelivery(endpoint as never, event, new Date());
      expect(await store.createIfAbsent(pending)).toBe(true);
      const claims = await Promise.all(
        Array.from({ length: 8 }, () => store.claim(pending, new Date(), 60_000)),
      );
      // a read-then-write claim lets several of them through
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
      expect(claims.find((c) => c !== null)?.version).toBe(pending.version + 1);
    } finally {
      await stopAndDrop(service);
    }
  });

  it('When two copies of one event reach two replicas at once, Then the webhook is sent once', async () => {
    const env = isolatedServiceEnv();
    const receiver = await startReceiver();
    const a = await startNotifications({}, env);
    const b = await startNotifications({}, env);
    try {
      const user = tokenFor(a.service);
      const ep = (
        await call(a.service, 'POST', '/api/webhooks', {
          headers: user.auth,
          body: { url: receiver.url, events: ['user.created'] },
        })
      ).body.data as { id: string };
      // both replicas know the endpoint (their in-memory copies are reloaded on its version bump)
      const event = makeEvent('user.created', {
        userId: user.sub,
        email: 'twice@example.com',
        username: 'twice',
        authProvider: 'password',
      });
      const warmUp = makeEvent('user.created', { ...event.data, email: 'warm@example.com' });
      await a.service.deps.publisher.publish(warmUp);
      await waitFor(() => expect(receiver.received.map((r) => r.headers['webhook-id'])).toContain(warmUp.id));

      // the same event under two message ids (a re-publish past the duplicate window): both are a
      // first delivery, so both replicas try the hot path at the same moment
      const { nats, bus } = a.service.deps;
      const subject = subjectFor(bus, event.event);
      await Promise.all(
        [randomUUID(), randomUUID()].map((msgID) =>
          nats.js.publish(subject, JSON.stringify(event), { msgID }),
        ),
      );
      const deliveries = webhookDeliveryRepository(a.service.deps.mongo.connection);
      await waitFor(async () =>
        expect(await deliveries.get(`${ep.id}:${event.id}`)).toMatchObject({
          status: 'succeeded',
          attempts: 1,
        }),
      );
      // both copies handled and acknowledged: each sends (or finds the delivery claimed) before its ack
      await waitFor(async () => {
        const info = await nats.jsm.consumers.info(bus.streamName, 'notifications');
        expect(info.num_ack_pending + info.num_pending).toBe(0);
      });
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === event.id)).toHaveLength(1);
    } finally {
      await stopAndDrop(b.service);
      await stopAndDrop(a.service);
      await receiver.close();
    }
  });
});
