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
  it('When the limits are set and later changed, Then both streams are created with them and updated in place', async () => {
    const name = uniqueName('t').toUpperCase();
    const base = eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
    try {
      await ensureStreams(nats.jsm, {
        ...base,
        maxAgeMs: 48 * 3600_000,
        maxBytes: 8 * 1024 * 1024,
        replicas: 1,
      });
      for (const stream of [name, `${name}_DLQ`])
        expect((await nats.jsm.streams.info(stream)).config).toMatchObject({
          max_age: 48 * HOUR_NS,
          max_bytes: 8 * 1024 * 1024,
          num_replicas: 1,
        });

      await ensureStreams(nats.jsm, { ...base, maxAgeMs: 24 * 3600_000, maxBytes: -1 });
      for (const stream of [name, `${name}_DLQ`])
        expect((await nats.jsm.streams.info(stream)).config).toMatchObject({
          max_age: 24 * HOUR_NS,
          max_bytes: -1,
        });
    } finally {
      for (const stream of [name, `${name}_DLQ`])
        await nats.jsm.streams.delete(stream).catch(() => undefined);
    }
  });
});
