import type mongoose from 'mongoose';
import { Schema } from 'mongoose';
import { runWithRequestContext } from '@lingua/logger';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { connectMongo, type MongoHandle } from './connect';

interface Line {
  n: number;
  text: string;
}

let db: MongoHandle;
let Lines: mongoose.Model<Line>;

beforeAll(async () => {
  db = await connectMongo(mongoUrl(), uniqueName('mongo_deadline'));
  Lines = db.connection.model<Line>('Line', new Schema<Line>({ n: Number, text: String }));
  // enough rows that an unindexed regex scan takes tens of milliseconds
  const rows = Array.from({ length: 30_000 }, (_, n) => ({ n, text: `line ${n} ${'x'.repeat(200)}` }));
  for (let i = 0; i < rows.length; i += 5_000)
    await Lines.insertMany(rows.slice(i, i + 5_000), { lean: true });
}, 60_000);

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const slowFilter = { text: { $regex: 'no such line$' } };
// awaited inside the context, as a route handler does (a mongoose query runs when awaited)
const inRequest = <T>(fn: () => PromiseLike<T>, ctx: { deadline?: number; signal?: AbortSignal }) =>
  runWithRequestContext({ requestId: 'r', correlationId: 'r', ...ctx }, async () => await fn());

describe('request deadlines reach the database', () => {
  it('When a query runs with no request deadline, Then it runs to the end', async () => {
    await expect(Lines.countDocuments(slowFilter)).resolves.toBe(0);
  });

  it('When a query runs in a request with 2 ms left, Then the database stops it (maxTimeMS) instead of scanning on', async () => {
    const started = performance.now();
    const err = await inRequest(() => Lines.countDocuments(slowFilter), { deadline: Date.now() + 2 }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: 'MongoServerError' });
    expect(String((err as Error).message)).toMatch(/statement timeout|time limit/i);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('When an update or an aggregation runs in a request past its deadline, Then it is stopped too', async () => {
    const late = { deadline: Date.now() - 1 };
    await expect(inRequest(() => Lines.updateMany(slowFilter, { $set: { n: -1 } }), late)).rejects.toThrow(
      /statement timeout|time limit/i,
    );
    await expect(
      inRequest(() => Lines.aggregate([{ $match: slowFilter }, { $count: 'n' }]).exec(), late),
    ).rejects.toThrow(/statement timeout|time limit/i);
  });

  it('When the request was abandoned, Then the operation is not started at all', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client gone'));
    await expect(
      inRequest(() => Lines.findOne({ n: 1 }).lean(), { signal: controller.signal }),
    ).rejects.toThrow('client gone');
    await expect(
      inRequest(() => Lines.create({ n: -2, text: 'never written' }), { signal: controller.signal }),
    ).rejects.toThrow('client gone');
    expect(await Lines.countDocuments({ n: -2 })).toBe(0);
  });

  it('When the request has time left, Then queries succeed as usual', async () => {
    const found = await inRequest(() => Lines.findOne({ n: 7 }).lean(), { deadline: Date.now() + 5_000 });
    expect(found?.text).toMatch(/^line 7 /);
  });
});
