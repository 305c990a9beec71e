import { waitFor } from '@lingua/testing';
import { cardCountersModel } from '../src/data-access/card-counters.model';
import { cardModel } from '../src/data-access/card.model';
import { dueIndexKeys } from '../src/data-access/due-index';
import { type BehindGateway, startBehindGateway } from './gateway-support';
import { DAY, sampleCard } from './support';

// Issue 36, item 6: the Redis due read model and the card counters are derived data. A crash between
// the database write and theirs, or a Redis failover that loses the last write, must not leave the
// app a wrong due list or total for longer than a bounded time, even for a user who keeps writing.

/** The due model's lifetime: longer than SHOWN_BOUND_MS, so only the window check can pass those tests. */
const LIFETIME_S = 8;
const COUNTERS_MAX_AGE_S = 2;
/** A card found right is not asked about again for this long (FLASHCARDS_DUE_INDEX_CHECK_MS). */
const CHECK_MS = 500;
/** The bound the app may see a missed write of a card shown in: the check's interval, with slack for a busy machine. */
const SHOWN_BOUND_MS = CHECK_MS + 2_500;
let stack: BehindGateway;

beforeAll(async () => {
  stack = await startBehindGateway({
    FLASHCARDS_DUE_INDEX_TTL_S: String(LIFETIME_S),
    FLASHCARDS_CARD_COUNTERS_MAX_AGE_S: String(COUNTERS_MAX_AGE_S),
    FLASHCARDS_DUE_INDEX_CHECK_MS: String(CHECK_MS),
  });
});
afterAll(() => stack?.stop());

type User = ReturnType<BehindGateway['user']>;
const cards = () => cardModel(stack.service.deps.mongo.connection).collection;
const redis = () => stack.service.deps.redis!.client;
const keysOf = (userId: string) => dueIndexKeys(stack.service.deps.mongo.connection.db!.databaseName, userId);

async function newCard(user: User, word: string): Promise<string> {
  const res = await user.api('POST', '/api/flashcards', sampleCard(word));
  expect(res.status).toBe(200);
  return res.body.data.id as string;
}

async function dueWords(user: User): Promise<string[]> {
  const res = await user.api('GET', '/api/flashcards/due?limit=100');
  expect(res.status).toBe(200);
  return (res.body.data.flashcards as { word: string }[]).map((c) => c.word).sort();
}

/** The card archived in the database only, as a crash between the database write and Redis's leaves it. */
const archiveInDatabaseOnly = (id: string) =>
  cards().updateOne({ _id: id } as never, { $set: { isArchived: true }, $inc: { _rev: 1 } });

describe('the due read model and card counters recover from writes they missed', () => {
  it('When a card was archived in the database but not in Redis, Then the due list the app gets leaves it out', async () => {
    const user = stack.user();
    const gone = await newCard(user, 'gone');
    await newCard(user, 'kept');
    expect(await dueWords(user)).toEqual(['gone', 'kept']); // the model is built and holds both

    await archiveInDatabaseOnly(gone);

    await waitFor(async () => expect(await dueWords(user)).toEqual(['kept']), {
      timeoutMs: SHOWN_BOUND_MS,
      intervalMs: 100,
    });
    expect(await dueWords(user)).toEqual(['kept']); // repaired, not just answered from the database once
  });

  it('When a card rescheduled in the database was not in Redis, Then the due list drops it within the check interval', async () => {
    const user = stack.user();
    const moved = await newCard(user, 'moved');
    await newCard(user, 'stays');
    expect(await dueWords(user)).toEqual(['moved', 'stays']);

    const later = new Date(stack.clock.now().getTime() + 10 * DAY);
    await cards().updateOne({ _id: moved } as never, { $set: { nextReviewDate: later }, $inc: { _rev: 1 } });

    await waitFor(async () => expect(await dueWords(user)).toEqual(['stays']), {
      timeoutMs: SHOWN_BOUND_MS,
      intervalMs: 100,
    });
  });

  it('When a review or a read of a card answers 404, Then the card leaves the read model (the due count too)', async () => {
    const user = stack.user();
    const gone = await newCard(user, 'gone');
    await newCard(user, 'kept');
    const before = await user.api('GET', '/api/learning/due?limit=1');
    expect(before.body.data.totalDue).toBe(2);

    await archiveInDatabaseOnly(gone);
    const review = await user.api('POST', `/api/flashcards/${gone}/review`, { confidence: 2 });
    expect(review.status).toBe(404);

    expect(await redis().zScore(keysOf(user.sub).due, gone)).toBeNull();
    const after = await user.api('GET', '/api/learning/due?limit=1');
    expect(after.body.data.totalDue).toBe(1);
  });

  it('When Redis lost the write that made a card due (failover), Then the card is in the due list after the model’s lifetime even though the user keeps writing', async () => {
    const user = stack.user();
    const lost = await newCard(user, 'lost');
    expect(await dueWords(user)).toEqual(['lost']);
    // Redis back at an older state: the card not due for ten days
    const k = keysOf(user.sub);
    const later = stack.clock.now().getTime() + 10 * DAY;
    await redis().zAdd(k.due, { score: later, value: lost });
    await redis().hDel(k.cards, lost);
    expect(await dueWords(user)).toEqual([]);

    let n = 0;
    const started = Date.now();
    await waitFor(
      async () => {
        await newCard(user, `busy${n++}`); // an active user: a write between every read
        expect(await dueWords(user)).toContain('lost');
      },
      { timeoutMs: 3 * LIFETIME_S * 1000, intervalMs: 200 },
    );
    expect(n).toBeGreaterThan(3);
    expect(Date.now() - started).toBeLessThan(3 * LIFETIME_S * 1000);
  }, 60_000);

  it('When the card counters missed a write (crash between the card and its counter), Then the list total is right again within their lifetime', async () => {
    const user = stack.user();
    await newCard(user, 'one');
    await newCard(user, 'two');
    const total = async () => (await user.api('GET', '/api/flashcards')).body.data.pagination.total as number;
    expect(await total()).toBe(2);
    // a card written without its counter's $inc
    await newCard(user, 'three');
    await cardCountersModel(stack.service.deps.mongo.connection).collection.updateOne(
      { _id: user.sub } as never,
      { $inc: { total: -1 } },
    );
    expect(await total()).toBe(2);

    await waitFor(async () => expect(await total()).toBe(3), {
      timeoutMs: 5 * COUNTERS_MAX_AGE_S * 1000,
      intervalMs: 200,
    });
  }, 30_000);
});
