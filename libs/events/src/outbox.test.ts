import mongoose, { Schema } from 'mongoose';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { mongoUrl, natsUrl, silentLogger, startNatsServer, uniqueName, waitFor } from '@lingua/testing';
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
    // the relay's own failure report is the signal that it tried while the broker was down
    const relayLogger = silentLogger('outbox-relay');
    const failures = jest.spyOn(relayLogger, 'warn');
    const relay = new OutboxRelay({
      publisher: createEventPublisher(nats, cfg),
      collections: [Users.collection],
      logger: relayLogger,
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
      // the relay tries and fails (twice: the first attempt and a retry) while the broker is down
      await waitFor(() => expect(failures.mock.calls.length).toBeGreaterThanOrEqual(2), {
        timeoutMs: 15_000,
      });
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
        // soon: the scan's back-off counts what its query cost, not the publishes that timed out
        // while the broker was down (ten 1 s timeouts put the next scan 10 s away)
        await waitFor(() => expect(received.map((e) => e.id)).toEqual([event.id]), { timeoutMs: 5_000 });
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

describe('outbox relay: finding pending documents', () => {
  it('When a kick names the document, Then only that document is read and published; the slow scan waits for its back-off', async () => {
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('hint')}`).asPromise();
    const Cards = conn.model('Card', new Schema({ _id: String, ...outboxFields }));
    const published: string[] = [];
    const queries: unknown[] = [];
    // the collection as the relay sees it, recording which reads it makes
    const recorded = new Proxy(Cards.collection, {
      get(target, prop, receiver) {
        if (prop === 'find' || prop === 'findOne')
          return (filter: unknown, options?: unknown) => {
            queries.push({ [prop]: filter });
            return (target[prop] as (f: unknown, o: unknown) => unknown).call(target, filter, options);
          };
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const relay = new OutboxRelay({
      publisher: { publish: async (e: AnyDomainEvent) => void published.push(e.id) } as never,
      collections: [recorded],
      logger,
      intervalMs: 60_000, // the safety-net poll stays out of the way
    });
    try {
      relay.start(); // the first run scans once
      await relay.flush();
      queries.length = 0;
      const [a, b] = ['c-1', 'c-2'].map((id) => makeEvent('user.deleted', { userId: id })) as [
        AnyDomainEvent,
        AnyDomainEvent,
      ];
      await Cards.create({ _id: 'c-1', ...stageEvents(a).fields });
      await Cards.create({ _id: 'c-2', ...stageEvents(b).fields }); // staged, but nobody kicks for it
      relay.kick({ collection: Cards.collection.collectionName, id: 'c-1' });
      await waitFor(() => expect(published).toEqual([a.id]));
      expect(queries).toEqual([{ find: { _id: { $in: ['c-1'] }, _outboxPending: true } }]);
      // the flag is cleared after the publish: wait for it rather than race it
      await waitFor(async () =>
        expect((await Cards.collection.findOne({ _id: 'c-1' as never }))?._outboxPending).toBe(false),
      );

      // a kick without a hint scans, and finds the other one
      relay.kick();
      await waitFor(() => expect(published).toEqual([a.id, b.id]));
      expect(queries).toContainEqual({ find: { _outboxPending: true } });
    } finally {
      await relay.stop();
      await conn.dropDatabase();
      await conn.close();
    }
  });
});

describe('outbox relay: batches', () => {
  it('When many documents are kicked at once and one of them cannot be published, Then they are read a batch per query, every other document is published in order and emptied, and the failed one keeps its events until a later run', async () => {
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('batch')}`).asPromise();
    const Cards = conn.model('Card', new Schema({ _id: String, ...outboxFields }));
    const published: string[] = [];
    let finds = 0;
    const recorded = new Proxy(Cards.collection, {
      get(target, prop, receiver) {
        if (prop === 'find') finds++;
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    let refuse: string | undefined;
    const relayLogger = silentLogger('outbox-relay');
    const failures = jest.spyOn(relayLogger, 'warn');
    const relay = new OutboxRelay({
      publisher: {
        publish: async (e: AnyDomainEvent) => {
          // an acknowledgement that takes a while, so documents overlap
          await new Promise((r) => setImmediate(r));
          if (e.id === refuse) throw new Error('stream unavailable');
          published.push(e.id);
        },
      } as never,
      collections: [recorded],
      logger: relayLogger,
      // more documents per batch than the relay publishes at once (32)
      batchSize: 40,
      intervalMs: 60_000,
    });
    try {
      relay.start();
      await relay.flush();
      finds = 0;
      const ids = Array.from({ length: 75 }, (_, i) => `c-${i}`);
      const events = new Map(
        ids.map((id) => [
          id,
          [
            makeEvent('user.deleted', { userId: id }),
            makeEvent('user.deleted', { userId: id }),
          ] as AnyDomainEvent[],
        ]),
      );
      refuse = events.get('c-7')![0]!.id;
      await Cards.insertMany(ids.map((id) => ({ _id: id, ...stageEvents(...events.get(id)!).fields })));
      for (const id of ids) relay.kick({ collection: Cards.collection.collectionName, id });
      await waitFor(() => expect(failures).toHaveBeenCalled());
      // a query per batch of hinted documents (the first kick's own run, then the other 74 in two),
      // not one per document
      expect(finds).toBe(1 + Math.ceil(74 / 40));
      // in that one run, everything but c-7 went out, each document's two events in order
      for (const id of ids.filter((i) => i !== 'c-7')) {
        const [first, second] = events.get(id)!.map((e) => published.indexOf(e.id));
        expect(first).toBeGreaterThanOrEqual(0);
        expect(second).toBeGreaterThan(first!);
      }
      expect(published).toHaveLength(148);
      await relay.flush().catch(() => undefined);
      expect(await Cards.collection.countDocuments({ _outboxPending: true })).toBe(1);
      const kept = await Cards.collection.findOne({ _id: 'c-7' as never });
      expect(kept!._outbox.map((e: { id: string }) => e.id)).toEqual(events.get('c-7')!.map((e) => e.id));

      refuse = undefined;
      await relay.flush();
      expect(published.filter((id) => events.get('c-7')!.some((e) => e.id === id))).toHaveLength(2);
      expect(await Cards.collection.countDocuments({ _outboxPending: true })).toBe(0);
    } finally {
      await relay.stop();
      await conn.dropDatabase();
      await conn.close();
    }
  });
});

describe('outbox relay racing a writer', () => {
  // No lock: the writer's $push + $inc and the relay's writes (an emptying conditional on exactly the
  // published entries, else $pull + conditional $set) are each one atomic single-document update
  // (libs/mongo/README.md). A relay that rewrote the whole _outbox array unconditionally, or a database
  // applying updates as read-modify-write, loses events or the writer's change.
  it('When a writer keeps staging events on one document while the relay publishes them, Then every event is published and every write kept', async () => {
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('race')}`).asPromise();
    const Docs = conn.model('Doc', new Schema({ _id: String, count: Number, ...outboxFields }));
    const published = new Set<string>();
    const relay = new OutboxRelay({
      publisher: {
        publish: async (e: AnyDomainEvent) => {
          published.add(e.id);
          await new Promise((r) => setImmediate(r)); // let writes in between publish and $pull
        },
      } as never,
      collections: [Docs.collection],
      logger,
      intervalMs: 60_000,
    });
    try {
      await Docs.create({ _id: 'd1', count: 0 });
      relay.start();
      const writers = 4;
      const perWriter = 15;
      const staged: string[] = [];
      await Promise.all(
        Array.from({ length: writers }, async () => {
          for (let i = 0; i < perWriter; i++) {
            const event = makeEvent('user.deleted', { userId: `d1-${staged.length}` });
            staged.push(event.id);
            const { update } = stageEvents(event);
            await Docs.collection.updateOne({ _id: 'd1' as never }, { ...update, $inc: { count: 1 } });
            relay.kick({ collection: Docs.collection.collectionName, id: 'd1' });
          }
        }),
      );
      await relay.flush();
      const doc = await Docs.collection.findOne({ _id: 'd1' as never });
      expect(doc).toMatchObject({ count: writers * perWriter, _outbox: [], _outboxPending: false });
      expect([...published].sort()).toEqual([...staged].sort());
    } finally {
      await relay.stop();
      await conn.dropDatabase();
      await conn.close();
    }
  }, 60_000);
});

describe('outbox relays of two replicas racing writers', () => {
  it('When two relays publish one document while writers keep staging on it, Then every event is published and none is left or lost', async () => {
    const conn = await mongoose.createConnection(`${mongoUrl()}/${uniqueName('race2')}`).asPromise();
    const Docs = conn.model('Doc', new Schema({ _id: String, count: Number, ...outboxFields }));
    const published = new Set<string>();
    const relayOf = () =>
      new OutboxRelay({
        publisher: {
          publish: async (e: AnyDomainEvent) => {
            published.add(e.id);
            await new Promise((r) => setImmediate(r)); // let the other relay and the writers in
          },
        } as never,
        collections: [Docs.collection],
        logger,
        intervalMs: 60_000,
      });
    const relays = [relayOf(), relayOf()];
    try {
      await Docs.create({ _id: 'd1', count: 0 });
      for (const r of relays) r.start();
      const staged: string[] = [];
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; i < 15; i++) {
            const event = makeEvent('user.deleted', { userId: `d1-${w}-${i}` });
            staged.push(event.id);
            // now and then the same event twice in one write: repeated ids take the one-by-one path
            const { update } = i % 7 === 0 ? stageEvents(event, event) : stageEvents(event);
            await Docs.collection.updateOne({ _id: 'd1' as never }, { ...update, $inc: { count: 1 } });
            relays[(w + i) % 2]!.kick({ collection: Docs.collection.collectionName, id: 'd1' });
          }
        }),
      );
      await Promise.all(relays.map((r) => r.flush()));
      const doc = await Docs.collection.findOne({ _id: 'd1' as never });
      expect(doc).toMatchObject({ count: 60, _outbox: [], _outboxPending: false });
      expect([...published].sort()).toEqual([...staged].sort());
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await conn.dropDatabase();
      await conn.close();
    }
  }, 60_000);

  it('When a backlog of many batches built up during a broker outage, Then one poll publishes all of it, read with majority read concern', async () => {
    const name = uniqueName('backlog').toUpperCase();
    const cfg = eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
    // every command the relay sends, as the database receives it
    const finds: { readConcern?: { level?: string } }[] = [];
    const conn = await mongoose
      .createConnection(`${mongoUrl()}/${uniqueName('outbox')}`, { monitorCommands: true })
      .asPromise();
    conn.getClient().on('commandStarted', (e) => {
      if (e.commandName === 'find') finds.push(e.command as { readConcern?: { level?: string } });
    });
    const nats = await connectNats(natsUrl(), { name: 'outbox-backlog' });
    const relay = new OutboxRelay({
      publisher: createEventPublisher(nats, cfg),
      collections: [conn.collection('cards')],
      logger,
      batchSize: 50,
      // one poll in this test: the one start() runs; the next would come a minute later
      intervalMs: 60_000,
    });
    try {
      await ensureStreams(nats.jsm, cfg);
      // 7 batches' worth, staged while the broker was unreachable
      const docs = Array.from({ length: 350 }, (_, i) => ({
        _id: `c${i}`,
        ...stageEvents(makeEvent('user.deleted', { userId: `u${i}` })).fields,
      }));
      await conn.collection('cards').insertMany(docs as never[]);
      relay.start();
      await waitFor(async () => expect((await nats.jsm.streams.info(name)).state.messages).toBe(350), {
        timeoutMs: 30_000,
      });
      // each batch is emptied once all of it is acknowledged: the last one just after its messages
      await waitFor(async () =>
        expect(await conn.collection('cards').countDocuments({ _outboxPending: true })).toBe(0),
      );
      expect(finds.length).toBeGreaterThan(0);
      expect(finds.every((f) => f.readConcern?.level === 'majority')).toBe(true);
    } finally {
      await relay.stop();
      await nats.close();
      await conn.dropDatabase();
      await conn.close();
    }
  }, 60_000);
});
