import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { natsUrl, silentLogger, uniqueName, waitFor } from '@lingua/testing';
import { startDurableConsumer } from './durable-consumer';
import { connectNats, type NatsHandle } from './nats-connection';
import { createEventPublisher } from './publisher';
import { ensureStreams, eventBusConfig } from './streams';

let nats: NatsHandle;
beforeAll(async () => {
  nats = await connectNats(natsUrl(), { name: 'streams-test' });
});
afterAll(() => nats.close());

const HOUR_NS = 3600 * 1e9;

describe('event stream limits', () => {
  it('When the limits are set and later changed, Then both streams are created with them and updated in place, dead letters kept a year', async () => {
    const name = uniqueName('t').toUpperCase();
    const base = eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
    try {
      await ensureStreams(nats.jsm, {
        ...base,
        maxAgeMs: 48 * 3600_000,
        maxBytes: 8 * 1024 * 1024,
        replicas: 1,
      });
      expect((await nats.jsm.streams.info(name)).config).toMatchObject({
        max_age: 48 * HOUR_NS,
        max_bytes: 8 * 1024 * 1024,
        num_replicas: 1,
      });
      // dead letters outlive the events: they wait for an explanation and a replay
      expect((await nats.jsm.streams.info(`${name}_DLQ`)).config).toMatchObject({
        max_age: 365 * 24 * HOUR_NS,
        max_bytes: 8 * 1024 * 1024,
        num_replicas: 1,
      });

      await ensureStreams(nats.jsm, {
        ...base,
        maxAgeMs: 24 * 3600_000,
        deadLetterMaxAgeMs: 30 * 24 * 3600_000,
        maxBytes: -1,
      });
      expect((await nats.jsm.streams.info(name)).config).toMatchObject({
        max_age: 24 * HOUR_NS,
        max_bytes: -1,
      });
      expect((await nats.jsm.streams.info(`${name}_DLQ`)).config).toMatchObject({
        max_age: 30 * 24 * HOUR_NS,
        max_bytes: -1,
      });
    } finally {
      for (const stream of [name, `${name}_ACTIVITY`, `${name}_DLQ`])
        await nats.jsm.streams.delete(stream).catch(() => undefined);
    }
  });

  it('When card.reviewed and user.deleted are published, Then card.reviewed fills a stream of its own, and each consumer reads its events from its stream', async () => {
    const name = uniqueName('t').toUpperCase();
    const cfg = eventBusConfig({
      streamName: name,
      subjectPrefix: name.toLowerCase(),
      maxBytes: 1024 * 1024,
    });
    await ensureStreams(nats.jsm, cfg);
    expect((await nats.jsm.streams.info(`${name}_ACTIVITY`)).config).toMatchObject({
      subjects: [`${cfg.subjectPrefix}_activity.>`],
      max_bytes: 1024 * 1024,
    });
    const publisher = createEventPublisher(nats, cfg);
    const reviewed = makeEvent('card.reviewed', {
      userId: 'u1',
      cardId: 'c1',
      correct: true,
      masteryLevel: 10,
      nextReviewDate: new Date().toISOString(),
    });
    const deleted = makeEvent('user.deleted', { userId: 'u1' });
    await publisher.publish(reviewed);
    await publisher.publish(deleted);
    // the account event's stream holds no review: reviews cannot push it out of its size limit
    expect((await nats.jsm.streams.info(name)).state.messages).toBe(1);
    expect((await nats.jsm.streams.info(`${name}_ACTIVITY`)).state.messages).toBe(1);

    const got: Record<string, AnyDomainEvent[]> = { reviews: [], all: [] };
    const consumers = [
      await startDurableConsumer(nats, cfg, {
        durable: 'reviews',
        events: ['card.reviewed'],
        logger: silentLogger(),
        handler: async (e) => void got.reviews!.push(e),
      }),
      await startDurableConsumer(nats, cfg, {
        durable: 'all',
        events: '*',
        logger: silentLogger(),
        handler: async (e) => void got.all!.push(e),
      }),
    ];
    try {
      await waitFor(() => expect(got.reviews!.map((e) => e.id)).toEqual([reviewed.id]));
      await waitFor(() => expect(got.all!.map((e) => e.id)).toEqual([deleted.id]));
      await expect(
        startDurableConsumer(nats, cfg, {
          durable: 'mixed',
          events: ['card.reviewed', 'user.deleted'],
          logger: silentLogger(),
          handler: async () => undefined,
        }),
      ).rejects.toThrow(/one stream/);
    } finally {
      for (const c of consumers) await c.stop();
    }
  });
});
