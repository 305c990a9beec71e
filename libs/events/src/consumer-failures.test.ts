import mongoose from 'mongoose';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import {
  type AnyDomainEvent,
  EVENT_DATA_SCHEMAS,
  EventEnvelope,
  makeEvent,
  parseEvent,
} from '@lingua/contracts';
import { registry } from '@lingua/metrics';
import {
  mongoUrl,
  natsUrl,
  silentLogger,
  startTcpProxy,
  type TcpProxy,
  uniqueName,
  waitFor,
} from '@lingua/testing';
import { startDurableConsumer } from './durable-consumer';
import { PermanentEventError } from './failures';
import { mongoProcessedEvents } from './processed-events';
import { connectNats, type NatsHandle } from './nats-connection';
import { createEventPublisher } from './publisher';
import { ensureStreams, eventBusConfig } from './streams';

const logger = silentLogger();
let nats: NatsHandle;
let proxy: TcpProxy;
let db: mongoose.Connection;
const dbName = uniqueName('consumer_failures');

beforeAll(async () => {
  nats = await connectNats(natsUrl(), { name: 'consumer-failures-test' });
  // the database behind a proxy the tests take down and bring back: real driver errors, real data
  const real = new URL(mongoUrl());
  proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 27017) });
  const through = new URL(mongoUrl());
  through.host = proxy.address;
  db = await mongoose
    .createConnection(through.toString(), {
      dbName,
      serverSelectionTimeoutMS: 300,
      connectTimeoutMS: 300,
      bufferCommands: false,
    })
    .asPromise();
});
afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await db.close();
  await proxy.close();
  await nats.close();
});

function isolatedBus() {
  const name = uniqueName('t').toUpperCase();
  return eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
}

const userDeleted = () => makeEvent('user.deleted', { userId: uniqueName('u') });
const deadLetters = async (stream: string) => (await nats.jsm.streams.info(`${stream}_DLQ`)).state.messages;
const consumed = async (consumer: string, outcome: string) =>
  (await registry.getSingleMetric('lingua_events_consumed_total')?.get())?.values
    .filter((v) => v.labels.consumer === consumer && v.labels.outcome === outcome)
    .reduce((n, v) => n + v.value, 0) ?? 0;

jest.setTimeout(120_000);

describe('durable consumer: outages, poison events and newer producers', () => {
  it('When the database is down for far more retries than the old five-attempt budget, Then the event is retried until it is back, applied once, and nothing is dead-lettered', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const erased = db.collection<{ _id: string }>('erased');
    let failures = 0;
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'erasure',
      events: ['user.deleted'],
      logger,
      maxAttempts: 5,
      backoffMs: [10, 20],
      maxBackoffMs: 50,
      handler: async (event) => {
        try {
          await erased.insertOne({
            _id: (event as AnyDomainEvent & { data: { userId: string } }).data.userId,
          });
        } catch (err) {
          failures++;
          throw err;
        }
      },
    });
    try {
      proxy.down();
      const event = userDeleted();
      await createEventPublisher(nats, cfg).publish(event);
      // four times the old budget of deliveries, each one failing on the unreachable database
      await waitFor(() => expect(failures).toBeGreaterThanOrEqual(20), {
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      expect(await deadLetters(cfg.streamName)).toBe(0);
      proxy.up();
      await waitFor(async () => expect(await erased.countDocuments({ _id: event.data.userId })).toBe(1), {
        timeoutMs: 30_000,
      });
      await waitFor(async () => {
        const info = await nats.jsm.consumers.info(cfg.streamName, 'erasure');
        expect(info.num_ack_pending + info.num_pending).toBe(0);
      });
      expect(await deadLetters(cfg.streamName)).toBe(0);
      expect(await consumed('erasure', 'retried')).toBeGreaterThanOrEqual(20);
    } finally {
      proxy.up();
      await consumer.stop();
    }
  });

  it('When the processed-event lookup failed many times during an outage, Then those failures do not count: a later handler failure is retried, not dead-lettered at once', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    let lookupFailures = 0;
    const records = mongoProcessedEvents(db, uniqueName('processed'));
    const calls: string[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'lookups',
      events: ['user.deleted'],
      logger,
      maxAttempts: 3,
      backoffMs: [10, 20],
      maxBackoffMs: 50,
      processed: {
        has: (c, id) =>
          records.has(c, id).catch((err) => {
            lookupFailures++;
            throw err;
          }),
        add: (c, id) => records.add(c, id),
      },
      handler: async (e) => {
        calls.push(e.id);
        // the first run after the outage loses its connection once more
        if (calls.length === 1) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      },
    });
    try {
      proxy.down();
      const event = userDeleted();
      await createEventPublisher(nats, cfg).publish(event);
      await waitFor(() => expect(lookupFailures).toBeGreaterThanOrEqual(10), { timeoutMs: 60_000 });
      proxy.up();
      await waitFor(() => expect(calls).toEqual([event.id, event.id]), { timeoutMs: 30_000 });
      await waitFor(async () => expect(await records.has('lookups', event.id)).toBe(true));
      expect(await deadLetters(cfg.streamName)).toBe(0);
    } finally {
      proxy.up();
      await consumer.stop();
    }
  });

  it('When a handler fails deterministically after outages, Then only its own failures count: dead-lettered after maxAttempts of them, with the reason', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const calls: string[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'poison',
      events: ['user.deleted'],
      service: 'poison-test',
      logger,
      maxAttempts: 3,
      backoffMs: [10, 20],
      maxBackoffMs: 50,
      handler: async () => {
        // six outages first (more than maxAttempts), then a failure no retry can cure
        if (calls.length < 6) {
          calls.push('outage');
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
        }
        calls.push('invalid');
        if (calls.length % 2 === 0) z.object({ userId: z.uuid() }).parse({ userId: 'not-a-uuid' });
        throw new PermanentEventError('user id names no account this service can erase');
      },
    });
    try {
      const event = userDeleted();
      await createEventPublisher(nats, cfg).publish(event);
      await waitFor(async () => expect(await deadLetters(cfg.streamName)).toBe(1), { timeoutMs: 30_000 });
      expect(calls).toEqual([
        'outage',
        'outage',
        'outage',
        'outage',
        'outage',
        'outage',
        'invalid',
        'invalid',
        'invalid',
      ]);
      const dlq = await nats.jsm.streams.getMessage(`${cfg.streamName}_DLQ`, { seq: 1 });
      expect(dlq!.json<AnyDomainEvent>().id).toBe(event.id);
      expect(dlq!.header.get('x-failed-attempts')).toBe('3');
      expect(dlq!.header.get('x-original-subject')).toBe(`${cfg.subjectPrefix}.user.deleted`);
      expect(dlq!.header.get('x-dead-letter-reason')).toMatch(/no account this service can erase/);
      // what the dead-letter alert reads (EventsDeadLetterStreamNotEmpty), as Prometheus scrapes it
      const usage = (await registry.getSingleMetric('lingua_events_stream_messages')!.get()).values;
      expect(usage).toContainEqual(
        expect.objectContaining({
          labels: { service: 'poison-test', stream: `${cfg.streamName}_DLQ`, kind: 'dead_letter' },
          value: 1,
        }),
      );
    } finally {
      await consumer.stop();
    }
  });

  it('When a handler takes longer than the ack wait and more events wait behind it, Then none of them is redelivered for waiting', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const handled: { id: string; deliveryCount: number }[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'slow',
      events: ['user.deleted'],
      logger,
      // 2 s, not less: the keep-alive goes every third of it, and a loaded test machine can stall a
      // process for most of a second (a 1 s wait saw every event redelivered under load)
      ackWaitMs: 2_000,
      handler: async (event, meta) => {
        handled.push({ id: event.id, deliveryCount: meta.deliveryCount });
        if (handled.length === 1) await gate;
      },
    });
    try {
      const events = Array.from({ length: 6 }, userDeleted);
      const publisher = createEventPublisher(nats, cfg);
      for (const e of events) await publisher.publish(e);
      // every event reached this client while the first handler runs; then three ack waits pass
      await waitFor(async () =>
        expect((await nats.jsm.consumers.info(cfg.streamName, 'slow')).num_pending).toBe(0),
      );
      const until = Date.now() + 6_000;
      await waitFor(() => expect(Date.now()).toBeGreaterThan(until), { timeoutMs: 10_000, intervalMs: 100 });
      expect((await nats.jsm.consumers.info(cfg.streamName, 'slow')).num_redelivered).toBe(0);
      release();
      await waitFor(() => expect(handled).toHaveLength(6));
      await waitFor(async () => {
        const info = await nats.jsm.consumers.info(cfg.streamName, 'slow');
        expect(info.num_ack_pending + info.num_pending).toBe(0);
      });
      expect(handled).toEqual(events.map((e) => ({ id: e.id, deliveryCount: 1 })));
    } finally {
      release();
      await consumer.stop();
    }
  });

  it('When a newer producer sends an enum value this build does not know, Then it is retried, not dead-lettered, and applied once the consumer is upgraded', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const base = makeEvent('subscription.updated', {
      subscriptionId: 's-1',
      userId: uniqueName('u'),
      deviceId: null,
      planId: 'premium_monthly',
      status: 'active',
      platform: 'ios',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      autoRenewal: true,
      isTrialPeriod: false,
      userRole: 'subscriber',
      userSubscriptionStatus: 'active',
      change: 'renewed',
    });
    // a platform added by the next release
    const newer = { ...base, data: { ...base.data, platform: 'web' } };
    await nats.js.publish(`${cfg.subjectPrefix}.subscription.updated`, JSON.stringify(newer), {
      msgID: newer.id,
    });
    const applied: AnyDomainEvent[] = [];
    const options = {
      durable: 'rolling',
      events: ['subscription.updated' as const],
      logger,
      backoffMs: [10, 20],
      maxBackoffMs: 50,
      handler: async (e: AnyDomainEvent) => void applied.push(e),
    };
    const old = await startDurableConsumer(nats, cfg, options);
    try {
      await waitFor(async () => expect(await consumed('rolling', 'deferred')).toBeGreaterThanOrEqual(5), {
        timeoutMs: 30_000,
      });
    } finally {
      await old.stop();
    }
    expect(applied).toEqual([]);
    expect(await deadLetters(cfg.streamName)).toBe(0);

    // the upgraded consumer reads the new value
    const newerSchema = (EVENT_DATA_SCHEMAS['subscription.updated'] as z.ZodObject).extend({
      platform: z.enum(['ios', 'android', 'sandbox', 'web']),
    });
    const upgraded = await startDurableConsumer(nats, cfg, {
      ...options,
      parse: (raw) => {
        const envelope = EventEnvelope.parse(raw);
        return { ...envelope, data: newerSchema.parse(envelope.data) } as AnyDomainEvent;
      },
    });
    try {
      await waitFor(() => expect(applied.map((e) => e.id)).toEqual([newer.id]));
      expect((applied[0]!.data as { platform: string }).platform).toBe('web');
      expect(await deadLetters(cfg.streamName)).toBe(0);
    } finally {
      await upgraded.stop();
    }
  });

  it('When a newer producer sends an event name this build does not know, Then it is retried, not dead-lettered, and handled once the consumer is upgraded', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const renamed = {
      id: randomUUID(),
      event: 'user.renamed',
      version: 1,
      timestamp: new Date().toISOString(),
      data: { userId: 'u-1', username: 'new-name' },
    };
    await nats.js.publish(`${cfg.subjectPrefix}.user.renamed`, JSON.stringify(renamed), {
      msgID: renamed.id,
    });
    const handled: string[] = [];
    const options = {
      durable: 'rolling-names',
      events: '*' as const,
      logger,
      backoffMs: [10, 20],
      maxBackoffMs: 50,
      // a redelivery the server sent as the old consumer stopped is pending until the ack wait ends
      // (30 s by default, past the wait below): short here, so the upgrade's wait does not race it
      ackWaitMs: 2_000,
      handler: async (e: AnyDomainEvent) => void handled.push(e.event),
    };
    const old = await startDurableConsumer(nats, cfg, options);
    try {
      await waitFor(
        async () => expect(await consumed('rolling-names', 'deferred')).toBeGreaterThanOrEqual(5),
        {
          timeoutMs: 30_000,
        },
      );
    } finally {
      await old.stop();
    }
    expect(handled).toEqual([]);
    expect(await deadLetters(cfg.streamName)).toBe(0);
    // the next release knows the event
    const upgraded = await startDurableConsumer(nats, cfg, {
      ...options,
      parse: (raw) => {
        const envelope = EventEnvelope.extend({ event: z.enum(['user.renamed']) }).safeParse(raw);
        return envelope.success ? (envelope.data as unknown as AnyDomainEvent) : parseEvent(raw);
      },
    });
    try {
      await waitFor(() => expect(handled).toEqual(['user.renamed']));
      expect(await deadLetters(cfg.streamName)).toBe(0);
    } finally {
      await upgraded.stop();
    }
  });
});
