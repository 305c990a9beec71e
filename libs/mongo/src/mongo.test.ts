import type mongoose from 'mongoose';
import { Schema } from 'mongoose';
import { AppError } from '@lingua/errors';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { connectMongo, type MongoHandle } from './connect';
import { mapDuplicateKeyError } from './duplicate-key';
import { ensureIndexes } from './indexes';

interface Word {
  userId: string;
  word: string;
  level: number;
  createdAt: Date;
}

const wordSchema = new Schema<Word>({ userId: String, word: String, level: Number, createdAt: Date });

let db: MongoHandle;
let Words: mongoose.Model<Word>;

beforeAll(async () => {
  db = await connectMongo(mongoUrl(), uniqueName('mongo_lib'));
  Words = db.connection.model<Word>('Word', wordSchema);
  // one word per user: the kind of unique index the services rely on for conflicts
  expect(
    await ensureIndexes(db.connection.db!, [
      { collection: Words.collection.name, key: { userId: 1, word: 1 }, unique: true },
    ]),
  ).toEqual([]);
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

describe('mongoose against the local MongoDB-compatible server', () => {
  it('When documents are created, Then find with sort and limit returns them in order', async () => {
    const base = Date.parse('2026-01-01T00:00:00Z');
    await Words.create(
      ['a', 'b', 'c', 'd'].map((w, i) => ({
        userId: 'u1',
        word: w,
        level: i,
        createdAt: new Date(base + i * 1000),
      })),
    );
    const newestTwo = await Words.find({ userId: 'u1' }).sort({ createdAt: -1 }).limit(2).lean();
    expect(newestTwo.map((w) => w.word)).toEqual(['d', 'c']);
  });

  it('When findOneAndUpdate runs, Then it returns the updated document and persists it', async () => {
    const updated = await Words.findOneAndUpdate(
      { userId: 'u1', word: 'a' },
      { $inc: { level: 10 } },
      { returnDocument: 'after' },
    ).lean();
    expect(updated?.level).toBe(10);
    expect((await Words.findOne({ userId: 'u1', word: 'a' }).lean())?.level).toBe(10);
  });

  it('When a unique index is violated, Then it maps to a 409 conflict naming the code asked for', async () => {
    expect.assertions(3);
    try {
      await Words.create({ userId: 'u1', word: 'b', level: 0, createdAt: new Date() });
    } catch (err) {
      try {
        mapDuplicateKeyError(err, { word: 'USERNAME_EXISTS' });
      } catch (mapped) {
        expect(mapped).toBeInstanceOf(AppError);
        expect((mapped as AppError).status).toBe(409);
        expect((mapped as AppError).code).toBe('USERNAME_EXISTS');
      }
    }
  });

  it('When the server answers, Then ping resolves', async () => {
    await expect(db.ping()).resolves.toBeUndefined();
  });

  it('When a non-duplicate error is mapped, Then it is rethrown unchanged', () => {
    const other = new Error('other');
    expect(() => mapDuplicateKeyError(other)).toThrow(other);
  });
});
