import type { AnyDomainEvent } from '@lingua/contracts';
import { makeEvent } from '@lingua/contracts';
import { natsUrl, silentLogger, uniqueName, waitFor } from '@lingua/testing';
import { startDurableConsumer } from './durable-consumer';
import { PermanentEventError } from './failures';
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
      // one at a time, in stream order: once a marker published later is handled, a second copy would be too
      const marker = userCreated('marker');
      await publisher.publish(marker);
      await waitFor(() => expect(received.map((e) => e.id)).toContain(marker.id));
      expect(received.map((e) => e.id)).toEqual([event.id, marker.id]);
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
      // republish until the server-side window (NATS clock, not ours) has passed: inside it each try is
      // dropped as a duplicate, so exactly one copy gets through
      await waitFor(async () => expect((await publisher.publish(event)).duplicate).toBe(false), {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      const marker = userCreated('marker');
      await publisher.publish(marker);
      await waitFor(() => expect(handled).toEqual([event.id, marker.id]));
    } finally {
      await consumer.stop();
    }
  });

  it('When a handler keeps failing deterministically, Then it is retried with back-off and dead-lettered after maxAttempts with the reason', async () => {
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
        throw new PermanentEventError('550 mailbox unavailable');
      },
    });
    try {
      const event = userCreated('cat');
      await createEventPublisher(nats, cfg).publish(event);
      await waitFor(() => expect(attempts).toEqual([1, 2, 3]));
      const dlq = await waitFor(async () => {
        const found = await nats.jsm.streams.getMessage(`${cfg.streamName}_DLQ`, {
          last_by_subj: deadLetterSubjectFor(cfg, 'mailer'),
        });
        expect(found).not.toBeNull();
        return found;
      });
      expect(dlq!.header.get('x-dead-letter-reason')).toBe('550 mailbox unavailable');
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
  it('When concurrency is N, Then up to N messages are handled at once, each acked after its own handler; by default one at a time', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const publisher = createEventPublisher(nats, cfg);
    // each handler runs until the test opens the gates, so the overlap does not depend on timing
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const run = async (durable: string, concurrency?: number) => {
      let running = 0;
      let peak = 0;
      const done: string[] = [];
      const consumer = await startDurableConsumer(nats, cfg, {
        durable,
        events: ['user.created'],
        logger,
        ...(concurrency && { concurrency }),
        handler: async (e) => {
          peak = Math.max(peak, ++running);
          await gate;
          running--;
          done.push(e.id);
        },
      });
      return { consumer, done, running: () => running, peak: () => peak };
    };
    const parallel = await run('parallel', 4);
    const serial = await run('serial');
    try {
      const events = Array.from({ length: 8 }, (_, i) => userCreated(`p${i}`));
      await Promise.all(events.map((e) => publisher.publish(e)));
      await waitFor(() => expect([parallel.running(), serial.running()]).toEqual([4, 1]));
      // all 8 were delivered to each consumer's client while the handlers hold: a fifth (a second)
      // would have started from what the client holds
      for (const durable of ['parallel', 'serial'])
        await waitFor(async () =>
          expect((await nats.jsm.consumers.info(cfg.streamName, durable)).num_pending).toBe(0),
        );
      expect([parallel.running(), serial.running()]).toEqual([4, 1]);
      open();
      await waitFor(() => expect(parallel.done).toHaveLength(8));
      await waitFor(() => expect(serial.done).toHaveLength(8));
      expect(parallel.peak()).toBe(4);
      expect(serial.peak()).toBe(1);
      expect(serial.done).toEqual(events.map((e) => e.id)); // stream order
      // every message was acked: nothing is pending or redelivered
      for (const durable of ['parallel', 'serial'])
        await waitFor(async () => {
          const info = await nats.jsm.consumers.info(cfg.streamName, durable);
          expect(info.num_ack_pending + info.num_pending).toBe(0);
        });
    } finally {
      open();
      await parallel.consumer.stop();
      await serial.consumer.stop();
    }
  });

  it('When events share an ordering key, Then they are handled one after the other in stream order, while other keys run alongside', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const started: string[] = [];
    const finished: string[] = [];
    // each handler runs until the test releases it, so what runs at once is decided by the test, not by timing
    const gates = new Map<string, () => void>();
    const release = (name: string) => {
      expect(gates.has(name)).toBe(true);
      gates.get(name)!();
    };
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'ordered',
      events: ['user.created'],
      logger,
      concurrency: 8,
      orderingKey: (e) => (e.data as { userId: string }).userId,
      handler: async (e) => {
        const name = (e.data as { username: string }).username;
        started.push(name);
        await new Promise<void>((r) => gates.set(name, r));
        finished.push(name);
      },
    });
    try {
      const publisher = createEventPublisher(nats, cfg);
      const ev = (user: string, name: string) =>
        makeEvent('user.created', {
          userId: user,
          email: `${name}@x.io`,
          username: name,
          authProvider: 'password',
        });
      for (const e of [ev('A', 'a1'), ev('B', 'b1'), ev('A', 'a2'), ev('C', 'c1'), ev('A', 'a3')])
        await publisher.publish(e);
      // c1 comes after a2 in the stream: once c1 runs, a2 was read and held back while a1 runs
      await waitFor(() => expect([...started].sort()).toEqual(['a1', 'b1', 'c1']));
      release('a1');
      await waitFor(() => expect(started).toContain('a2'));
      expect(started).not.toContain('a3');
      release('a2');
      await waitFor(() => expect(started).toContain('a3'));
      for (const name of ['a3', 'b1', 'c1']) release(name);
      await waitFor(() => expect(finished).toHaveLength(5));
      expect(finished.filter((n) => n.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    } finally {
      await consumer.stop();
    }
  });

  it('When a handler is declared idempotent for an event, Then no processed-event record is read or written for it', async () => {
    const cfg = isolatedBus();
    await ensureStreams(nats.jsm, cfg);
    const lookedUp: string[] = [];
    const processed = {
      has: async (_c: string, id: string) => {
        lookedUp.push(id);
        return false;
      },
      add: async (_c: string, id: string) => void lookedUp.push(`add:${id}`),
    };
    const handled: string[] = [];
    const consumer = await startDurableConsumer(nats, cfg, {
      durable: 'partly-idempotent',
      events: '*',
      logger,
      processed,
      idempotent: (e) => e.event === 'user.created',
      handler: async (e) => void handled.push(e.id),
    });
    try {
      const publisher = createEventPublisher(nats, cfg);
      const created = userCreated('dan');
      const deleted = makeEvent('user.deleted', { userId: 'id-dan' });
      await publisher.publish(created);
      await publisher.publish(deleted);
      await waitFor(() => expect(handled).toEqual([created.id, deleted.id]));
      await waitFor(() => expect(lookedUp).toEqual([deleted.id, `add:${deleted.id}`]));
    } finally {
      await consumer.stop();
    }
  });
});
