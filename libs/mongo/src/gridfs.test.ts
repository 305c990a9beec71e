import { randomBytes } from 'node:crypto';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { connectMongo, type MongoHandle } from './connect';
import { fileBucket } from './gridfs';

let db: MongoHandle;
beforeAll(async () => {
  db = await connectMongo(mongoUrl(), uniqueName('mongo_gridfs'));
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

async function* pieces(data: Buffer, size: number, failAfter?: number) {
  for (let i = 0; i < data.length; i += size) {
    if (failAfter !== undefined && i >= failAfter) throw new Error('source failed');
    yield data.subarray(i, i + size);
  }
}
const read = async (content: AsyncIterable<Uint8Array>) => {
  const parts: Uint8Array[] = [];
  for await (const part of content) parts.push(part);
  return Buffer.concat(parts);
};

describe('fileBucket (GridFS)', () => {
  it('When a file is streamed in, Then it is read back whole with its length', async () => {
    const files = fileBucket(db.connection, 'roundtrip');
    const data = randomBytes(5 * 1024 * 1024 + 7);
    await files.upload('a-file', pieces(data, 64 * 1024), { owner: 'u1' });
    const opened = await files.open('a-file');
    expect(opened?.length).toBe(data.length);
    expect((await read(opened!.content)).equals(data)).toBe(true);
  });

  it('When the source fails part-way, Then the error is rethrown and no chunk or file is left', async () => {
    const files = fileBucket(db.connection, 'failing');
    const data = randomBytes(6 * 1024 * 1024);
    await expect(files.upload('broken', pieces(data, 64 * 1024, 5 * 1024 * 1024))).rejects.toThrow(
      'source failed',
    );
    expect(await files.open('broken')).toBeUndefined();
    expect(await db.connection.db!.collection('failing.chunks').countDocuments()).toBe(0);
  });

  it('When a file is deleted, or a missing one, Then it is gone and no error is raised', async () => {
    const files = fileBucket(db.connection, 'deleting');
    await files.upload('x', [Buffer.from('hello')]);
    await files.delete('x');
    await files.delete('x');
    await files.delete('never-there');
    expect(await files.open('x')).toBeUndefined();
    expect(await db.connection.db!.collection('deleting.chunks').countDocuments()).toBe(0);
  });
});
