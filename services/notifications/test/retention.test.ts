import { isolatedServiceEnv } from '@lingua/testing';
import { startNotifications, stopAndDrop } from './support';

type Started = Awaited<ReturnType<typeof startNotifications>>;
let started: Started | undefined;

afterAll(async () => {
  await stopAndDrop(started?.service);
});

const DAY = 24 * 3600;

describe('retention and stream limits are settings', () => {
  it('When the service starts with retention and stream settings, Then the TTL indexes and the event streams carry them', async () => {
    // Arrange
    const env = isolatedServiceEnv({
      NOTIFICATIONS_RETENTION_DAYS: '45',
      WEBHOOK_DELIVERY_RETENTION_DAYS: '10',
      PROCESSED_EVENTS_TTL_HOURS: '100',
      EVENTS_MAX_AGE_HOURS: '72',
      EVENTS_MAX_BYTES: String(64 * 1024 * 1024),
      EVENTS_REPLICAS: '1',
      EVENTS_DUPLICATE_WINDOW_MS: '90000',
    });

    // Act
    started = await startNotifications({}, env);

    // Assert: the TTL indexes, with the configured lifetimes
    const db = started.service.deps.mongo.connection.db!;
    const ttlOf = async (collection: string, field: string) =>
      (await db.collection(collection).indexes()).find(
        (i) => JSON.stringify(i.key) === JSON.stringify({ [field]: 1 }),
      )?.expireAfterSeconds;
    expect(await ttlOf('notifications', 'createdAt')).toBe(45 * DAY);
    expect(await ttlOf('webhook_deliveries', 'updatedAt')).toBe(10 * DAY);
    expect(await ttlOf('webhook_attempts', 'at')).toBe(10 * DAY);
    expect(await ttlOf('processed_events', 'at')).toBe(100 * 3600);

    // and the streams, as JetStream reports them
    const { jsm } = started.service.deps.nats;
    // dead letters are kept a year whatever the events' retention, until replayed (events:replay)
    for (const [name, hours] of [
      [env.EVENTS_STREAM!, 72],
      [`${env.EVENTS_STREAM!}_DLQ`, 365 * 24],
    ] as const) {
      const { config } = await jsm.streams.info(name);
      expect(config).toMatchObject({
        max_age: hours * 3600 * 1e9,
        max_bytes: 64 * 1024 * 1024,
        num_replicas: 1,
        duplicate_window: 90_000 * 1e6,
      });
    }
  });
});
