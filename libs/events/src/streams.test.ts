import { natsUrl, uniqueName } from '@lingua/testing';
import { connectNats, type NatsHandle } from './nats-connection';
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
      for (const stream of [name, `${name}_DLQ`])
        await nats.jsm.streams.delete(stream).catch(() => undefined);
    }
  });
});
