import type { AnyDomainEvent } from '@lingua/contracts';
import { makeEvent } from '@lingua/contracts';
import { natsUrl, silentLogger, uniqueName, waitFor } from '@lingua/testing';
import { startDurableConsumer } from './durable-consumer';
import { connectNats, type NatsHandle } from './nats-connection';
import { createEventPublisher } from './publisher';
import { deadLetterSubjectFor, ensureStreams, eventBusConfig } from './streams';

const logger = silentLogger();
let nats: NatsHandle;

beforeAll(async () => {
  nats = await connectNats(natsUrl(), { name: 'events-test' });
});
afterAll(() => nats.close());

const userCreated = (username: string) =>
  makeEvent('user.created', {
    userId: `id-${username}`,
    email: `${username}@x.io`,
    username,
    authProvider: 'password',
  });

function isolatedBus() {
  const name = uniqueName('t').toUpperCase();
  return eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
}

describe('JetStream event bus', () => {
  it('When the consumer was down at publish time, Then it receives the event on start, and a re-published id is handled once', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    await ensureStreams(nats.jsm, cfg); // idempotent
    const received: AnyDomainEvent[] = [];
    const options = {
      durable: 'notifications',
      events: ['user.created' as const],
      logger,
      handler: async (e: AnyDomainEvent) => void received.push(e),
    };
    // the consumer exists (registered by an earlier run of the service), but the service is down now
    await (await startDurableConsumer(nats, cfg, options)).stop();

    const publisher = createEventPublisher(nats, cfg);
    const event = userCreated('ann');
    const first = await publisher.publish(event);
    const again = await publisher.publish(event);
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ seq: first.seq, duplicate: true });

    const consumer = await startDurableConsumer(nats, cfg, options);
    try {
      await waitFor(() => expect(received.map((e) => e.id)).toEqual([event.id]));
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toHaveLength(1);
      expect(received[0]).toEqual(event);
    } finally {
      await consumer.stop();
    }
  });

  it('When the same event id comes back after the duplicate window, Then the processed-event record skips it', async () => {
    const cfg = { ...isolatedBus(), duplicateWindowMs: 1_000 };
    await ensureStreams(nats.jsm, cfg);
    const handled: string[] = [];
    const seen = new Set<string>();
    const processed = {
      has: async (c: string, id: string) => seen.has(`${c}:${id}`),
      add: async (c: string, id: string) => void seen.add(`${c}:${id}`),
    };
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'identity',
      events: '*',
      logger,
      processed,
      handler: async (e) => void handled.push(e.id),
    });
    try {
      const publisher = createEventPublisher(nats, cfg);
      const event = userCreated('bob');
      await publisher.publish(event);
      await waitFor(() => expect(handled).toEqual([event.id]));
      await new Promise((r) => setTimeout(r, 1_100)); // outlive the server-side window (NATS clock, not ours)
      expect((await publisher.publish(event)).duplicate).toBe(false);
      const marker = userCreated('marker');
      await publisher.publish(marker);
      await waitFor(() => expect(handled).toEqual([event.id, marker.id]));
    } finally {
      await consumer.stop();
    }
  });

  it('When a handler keeps failing, Then it is retried with back-off and dead-lettered after maxAttempts with the reason', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const attempts: number[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'mailer',
      events: ['user.created'],
      logger,
      maxAttempts: 3,
      backoffMs: [20, 40],
      handler: async (_e, meta) => {
        attempts.push(meta.deliveryCount);
        throw new Error('smtp down');
      },
    });
    try {
      const event = userCreated('cat');
      await createEventPublisher(nats, cfg).publish(event);
      await waitFor(() => expect(attempts).toEqual([1, 2, 3]));
      const dlq = await nats.jsm.streams.getMessage(`${cfg.streamName}_DLQ`, {
        last_by_subj: deadLetterSubjectFor(cfg, 'mailer'),
      });
      expect(dlq).not.toBeNull();
      expect(dlq!.header.get('x-dead-letter-reason')).toBe('smtp down');
      expect(dlq!.json<AnyDomainEvent>().id).toBe(event.id);
    } finally {
      await consumer.stop();
    }
  });

  it('When a message is not a valid event, Then it is dead-lettered at once without calling the handler', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    let calls = 0;
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'strict',
      events: '*',
      logger,
      handler: async () => void calls++,
    });
    try {
      await nats.js.publish(`${cfg.subjectPrefix}.user.created`, JSON.stringify({ id: 'nope' }));
      await waitFor(async () => {
        const dlq = await nats.jsm.streams.getMessage(`${cfg.streamName}_DLQ`, {
          last_by_subj: deadLetterSubjectFor(cfg, 'strict'),
        });
        expect(dlq!.header.get('x-dead-letter-reason')).toMatch(/malformed event/);
      });
      expect(calls).toBe(0);
    } finally {
      await consumer.stop();
    }
  });
});
