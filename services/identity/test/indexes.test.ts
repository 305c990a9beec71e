import { connectMongo } from '@lingua/mongo';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { identityIndexes } from '../src/data-access/indexes';
import { eventually, type Harness, startIdentity } from './harness';

let h: Harness | undefined;
afterAll(async () => {
  await h?.stop();
});

const ready = async (url: string) => {
  const res = await fetch(`${url}/health/ready`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, { error?: string }> } };
};

describe('indexes at start', () => {
  it('When a unique index cannot be built, Then the service stays not-ready naming the index, and becomes ready once the data is fixed', async () => {
    // Arrange: two accounts with one e-mail, as an old bug or a manual import could leave them
    const dbName = `${uniqueName('idx')}_identity`;
    const seed = await connectMongo(mongoUrl(), dbName);
    const users = seed.connection.db!.collection('users');
    await users.insertMany([
      { _id: 'u1' as never, email: 'twice@example.com', username: 'first' },
      { _id: 'u2' as never, email: 'twice@example.com', username: 'second' },
    ]);

    // Act
    h = await startIdentity({ IDENTITY_MONGO_DB: dbName });

    // Assert: up, answering, but not ready, and the readiness answer names the index
    const notReady = await ready(h.url);
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks.indexes?.error).toMatch(/users\.email_1/);
    expect(notReady.body.checks.database).toMatchObject({ status: 'up' });

    await users.deleteOne({ _id: 'u2' as never });
    await seed.close();
    await eventually(async () => expect((await ready(h!.url)).status).toBe(200));

    // every index of the list now exists, as declared
    const db = h.service.deps.mongo.connection.db!;
    for (const spec of identityIndexes) {
      const built = (await db.collection(spec.collection).indexes()).find(
        (i) => JSON.stringify(i.key) === JSON.stringify(spec.key),
      );
      expect(built).toMatchObject({ ...(spec.unique && { unique: true }) });
    }
  });
});
