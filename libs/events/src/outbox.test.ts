import mongoose, { Schema } from 'mongoose';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { mongoUrl, silentLogger, startNatsServer, uniqueName, waitFor } from '@lingua/testing';
import { startDurableConsumer } from './durable-consumer';
import { connectNats } from './nats-connection';
import { OutboxRelay, outboxFields, stageEvents } from './outbox';
import { createEventPublisher } from './publisher';
import { ensureStreams, eventBusConfig } from './streams';

const logger = silentLogger();

describe('transactional outbox', () => {
  it('When NATS is down at write time, Then the event stays with its document and is published once NATS is back', async () => {
    const broker = await startNatsServer();
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('outbox')}`).asPromise();
    const Users = conn.model('User', new Schema({ _id: String, email: String, ...outboxFields }));
    const nats = await connectNats(broker.url, { name: 'outbox-test', timeoutMs: 1_000 });
    const cfg = eventBusConfig();
    await ensureStreams(nats.jsm, cfg);
    const relay = new OutboxRelay({
      publisher: createEventPublisher(nats, cfg),
      collections: [Users.collection],
      logger,
      intervalMs: 100,
    });
    const received: AnyDomainEvent[] = [];
    try {
      await broker.stop();

      // the write and its event are one atomic single-document insert
      const event = makeEvent('user.created', {
        userId: 'u-1',
        email: 'a@b.co',
        username: 'ann',
        authProvider: 'password',
      });
      await Users.create({ _id: 'u-1', email: 'a@b.co', ...stageEvents(event).fields });
      relay.start();
      await new Promise((r) => setTimeout(r, 1_500)); // the relay tries and fails while the broker is down
      const pending = await Users.collection.findOne({ _id: 'u-1' as never });
      expect(pending?._outboxPending).toBe(true);
      expect(pending?._outbox).toHaveLength(1);

      await broker.start();
      const consumer = await waitFor(
        () =>
          startDurableConsumer(nats, cfg, {
            durable: 'probe',
            events: '*',
            logger,
            handler: async (e) => void received.push(e),
          }),
        { timeoutMs: 15_000 },
      );
      try {
        await waitFor(() => expect(received.map((e) => e.id)).toEqual([event.id]), { timeoutMs: 15_000 });
        // the relay removes the entry only after the stream's ack, so this settles just after delivery
        await waitFor(async () => {
          const published = await Users.collection.findOne({ _id: 'u-1' as never });
          expect(published).toMatchObject({ _outboxPending: false, _outbox: [], email: 'a@b.co' });
        });
      } finally {
        await consumer.stop();
      }
    } finally {
      await relay.stop();
      await nats.close();
      await conn.dropDatabase();
      await conn.close();
      await broker.dispose();
    }
  }, 60_000);

  it('When an update stages events, Then they are pushed atomically and published in order', async () => {
    const broker = await startNatsServer();
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('outbox')}`).asPromise();
    const Subs = conn.model('Sub', new Schema({ _id: String, status: String, ...outboxFields }));
    const nats = await connectNats(broker.url, { name: 'outbox-test-2' });
    const cfg = eventBusConfig();
    await ensureStreams(nats.jsm, cfg);
    const received: string[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'probe',
      events: '*',
      logger,
      handler: async (e) => void received.push(e.event),
    });
    const relay = new OutboxRelay({
      publisher: createEventPublisher(nats, cfg),
      collections: [Subs.collection],
      logger,
    });
    try {
      const data = {
        subscriptionId: 's1',
        userId: 'u1',
        deviceId: null,
        planId: 'monthly',
        platform: 'sandbox' as const,
        expiresAt: new Date().toISOString(),
        autoRenewal: true,
        isTrialPeriod: false,
        userRole: 'subscriber' as const,
        userSubscriptionStatus: 'active' as const,
      };
      await Subs.create({
        _id: 's1',
        status: 'active',
        ...stageEvents(makeEvent('subscription.created', { ...data, status: 'active' })).fields,
      });
      const staged = stageEvents(
        makeEvent('subscription.updated', { ...data, status: 'cancelled', change: 'cancelled' }),
      );
      await Subs.updateOne(
        { _id: 's1' },
        { ...staged.update, $set: { ...staged.update.$set, status: 'cancelled' } },
      );
      await relay.flush();
      await waitFor(() => expect(received).toEqual(['subscription.created', 'subscription.updated']));
      expect((await Subs.collection.findOne({ _id: 's1' as never }))?._outboxPending).toBe(false);
    } finally {
      await consumer.stop();
      await relay.stop();
      await nats.close();
      await conn.dropDatabase();
      await conn.close();
      await broker.dispose();
    }
  });
});
