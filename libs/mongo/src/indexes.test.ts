import { capturedLogger, mongoUrl, uniqueName, waitFor } from '@lingua/testing';
import { connectMongo, type MongoHandle } from './connect';
import { buildIndexes, ensureIndexes, type IndexSpec } from './indexes';

let db: MongoHandle;

beforeAll(async () => {
  db = await connectMongo(mongoUrl(), uniqueName('mongo_indexes'));
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const indexesOf = async (collection: string) =>
  (await db.connection.db!.collection(collection).indexes()).filter((i) => i.name !== '_id_');

describe('indexes from a service list', () => {
  it('When the list is built twice, Then every index exists once, under the name the driver would give it', async () => {
    const specs: IndexSpec[] = [
      { collection: 'words', key: { userId: 1, createdAt: -1 } },
      { collection: 'words', key: { email: 1 }, unique: true },
      { collection: 'words', key: { storeKey: 1 }, unique: true, name: 'storeKey_unique' },
    ];
    expect(await ensureIndexes(db.connection.db!, specs)).toEqual([]);
    expect(await ensureIndexes(db.connection.db!, specs)).toEqual([]);
    const built = await indexesOf('words');
    expect(built.map((i) => i.name).sort()).toEqual(['email_1', 'storeKey_unique', 'userId_1_createdAt_-1']);
    expect(built.find((i) => i.name === 'email_1')?.unique).toBe(true);
  });

  it('When a TTL setting changes, Then the existing TTL index takes the new lifetime', async () => {
    const ttl = (seconds: number): IndexSpec[] => [
      { collection: 'expiring', key: { at: 1 }, expireAfterSeconds: seconds },
    ];
    expect(await ensureIndexes(db.connection.db!, ttl(3_600))).toEqual([]);
    expect(await ensureIndexes(db.connection.db!, ttl(7_200))).toEqual([]);
    expect(await indexesOf('expiring')).toEqual([
      expect.objectContaining({ name: 'at_1', expireAfterSeconds: 7_200 }),
    ]);
  });

  it('When a unique index cannot be built, Then it is named, readiness fails, and it is built once the data is fixed', async () => {
    const people = db.connection.db!.collection('people');
    await people.insertMany([
      { _id: 'a' as never, email: 'same@example.com' },
      { _id: 'b' as never, email: 'same@example.com' },
    ]);
    const { logger, lines } = capturedLogger('indexes-test');
    const build = await buildIndexes(
      db.connection.db!,
      [
        { collection: 'people', key: { createdAt: -1 } },
        { collection: 'people', key: { email: 1 }, unique: true },
      ],
      { logger, retryMs: { first: 50, max: 200 } },
    );
    try {
      await expect(build.check()).rejects.toThrow(/indexes not built: people\.email_1 \(/);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'error',
          index: 'people.email_1',
          msg: expect.stringMatching(/people\.email_1/),
        }),
      );
      // the other index of the list was built regardless
      expect((await indexesOf('people')).map((i) => i.name)).toEqual(['createdAt_-1']);

      await people.deleteOne({ _id: 'b' as never });
      await waitFor(() => build.check(), { timeoutMs: 10_000, intervalMs: 50 });
      expect((await indexesOf('people')).map((i) => i.name).sort()).toEqual(['createdAt_-1', 'email_1']);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'info', index: 'people.email_1' }));
    } finally {
      build.stop();
    }
  });
});
