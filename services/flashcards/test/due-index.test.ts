import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { connectRedis } from '@lingua/redis';
import { redisUrl, silentLogger, type TestClock, waitFor } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { cardRepository } from '../src/data-access/card-read-models';
import { dueIndexSource } from '../src/data-access/card.repository';
import { createDueIndex, decodedCardMemo, type DueIndex, dueIndexKeys } from '../src/data-access/due-index';
import { newCard } from '../src/domain/cards/card-fields';
import { DAY, newUserClient, publish, sampleCard, startFlashcards, stopFlashcards } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

const redis = () => service.deps.redis!.client;
const keys = (userId: string) => dueIndexKeys(service.deps.mongo.connection.db!.databaseName, userId);

/** The user's due index as Redis holds it: card id → due ms, favourites, built or not. */
async function indexOf(userId: string) {
  const k = keys(userId);
  const [due, fav, ready] = await Promise.all([
    redis().zRangeWithScores(k.due, 0, -1),
    redis().zRange(k.fav, 0, -1),
    redis().exists(k.ready),
  ]);
  return {
    ready: ready === 1,
    due: Object.fromEntries(due.map((m) => [m.value, m.score])),
    fav: [...fav].sort(),
  };
}

/** What the index must hold, computed from the database (the source of truth). */
async function truthOf(userId: string) {
  const docs = await cardModel(service.deps.mongo.connection)
    .find({ userId, isArchived: false })
    .lean<{ _id: string; nextReviewDate: Date; isFavorite: boolean }[]>();
  return {
    ready: true,
    due: Object.fromEntries(docs.map((d) => [d._id, d.nextReviewDate.getTime()])),
    fav: docs
      .filter((d) => d.isFavorite)
      .map((d) => d._id)
      .sort(),
  };
}

const expectIndexInStep = async (userId: string) =>
  expect(await indexOf(userId)).toEqual(await truthOf(userId));

const dueWords = async (user: ReturnType<typeof newUserClient>, query = '') => {
  const res = await user.api('GET', `/api/flashcards/due?limit=100${query}`);
  expect(res.status).toBe(200);
  return (res.body.data.flashcards as { word: string }[]).map((c) => c.word);
};

async function importCsv(
  user: ReturnType<typeof newUserClient>,
  csv: string,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([csv]), 'words.csv');
  const res = await fetch(`${service.httpUrl}/api/import/cards`, {
    method: 'POST',
    headers: user.auth(),
    body: form,
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('due read model (Redis)', () => {
  it('When Group B cards are created, favourited, reviewed, edited and archived, Then the index follows every write and /due matches the database', async () => {
    const user = newUserClient(service, clock);
    const ids: Record<string, string> = {};
    for (const word of ['alpha', 'beta', 'gamma'])
      ids[word] = (await user.api('POST', '/api/flashcards', sampleCard(word))).body.data.id;
    // the first due read builds the index from the database
    expect((await dueWords(user)).sort()).toEqual(['alpha', 'beta', 'gamma']);
    await expectIndexInStep(user.sub);

    await user.api('POST', `/api/flashcards/${ids.beta}/favorite`);
    await expectIndexInStep(user.sub);
    expect(await dueWords(user, '&favoritesOnly=true')).toEqual(['beta']);

    await user.api('POST', `/api/flashcards/${ids.alpha}/review`, { confidence: 1 });
    await expectIndexInStep(user.sub);
    expect((await dueWords(user)).sort()).toEqual(['beta', 'gamma']);

    await user.api('PUT', `/api/flashcards/${ids.gamma}`, sampleCard('delta'));
    expect((await dueWords(user)).sort()).toEqual(['beta', 'delta']);

    await user.api('DELETE', `/api/flashcards/${ids.beta}`);
    await expectIndexInStep(user.sub);
    expect(await dueWords(user)).toEqual(['delta']);
    expect(await dueWords(user, '&favoritesOnly=true')).toEqual([]);

    // two days later the reviewed card is due again, and next-review names the earliest card
    clock.advance(2 * DAY + 1000);
    expect((await dueWords(user)).sort()).toEqual(['alpha', 'delta']);
    expect((await user.api('GET', '/api/flashcards/next-review')).body.data.flashcard.word).toBe('delta');
  });

  it('When Group C cards go through batch create/update/move/delete, reviews and a set delete, Then the index stays in step', async () => {
    const user = newUserClient(service, clock);
    const setA = (await user.api('POST', '/api/flashcard-sets', { name: 'A' })).body.data.set.id;
    const setB = (await user.api('POST', '/api/flashcard-sets', { name: 'B' })).body.data.set.id;
    await user.api('GET', '/api/learning/due'); // builds the (empty) index
    expect((await indexOf(user.sub)).ready).toBe(true);

    const created = await user.api('POST', '/api/flashcards/batch', {
      operation: 'create',
      targetSetId: setA,
      data: ['one', 'two', 'three', 'four'].map((w) => ({ word: w, translation: `${w}-t` })),
    });
    expect(created.body.data.success).toBe(4);
    const ids = (created.body.data.cards as { id: string }[]).map((c) => c.id);
    await expectIndexInStep(user.sub);

    await user.api('POST', '/api/flashcards/batch', {
      operation: 'update',
      cardIds: [ids[0]],
      data: { tags: ['x'] },
    });
    await user.api('POST', '/api/flashcards/batch', {
      operation: 'move',
      cardIds: [ids[1]],
      targetSetId: setB,
    });
    await user.api('POST', '/api/flashcards/batch', { operation: 'delete', cardIds: [ids[2]] });
    await user.api('POST', '/api/learning/review', { cardId: ids[3], rating: 4 });
    await expectIndexInStep(user.sub);

    const due = await user.api('GET', '/api/learning/due');
    expect(due.body.data.totalDue).toBe(2);
    expect((due.body.data.cards as { id: string }[]).map((c) => c.id).sort()).toEqual(
      [ids[0], ids[1]].sort(),
    );

    await user.api('DELETE', `/api/flashcard-sets/${setA}`);
    await expectIndexInStep(user.sub);
    expect(Object.keys((await indexOf(user.sub)).due)).toEqual([ids[1]]);
  });

  it('When cards are imported (create, then replace), Then new cards are in the index and /due shows the replaced content', async () => {
    const user = newUserClient(service, clock);
    await user.api('POST', '/api/flashcards', sampleCard('Haus'));
    expect(await dueWords(user)).toEqual(['Haus']);

    const first = await importCsv(user, 'word,translation\nBaum,tree\nBlume,flower\n');
    expect(first.data.created).toBe(2);
    await expectIndexInStep(user.sub);
    expect((await dueWords(user)).sort()).toEqual(['Baum', 'Blume', 'Haus']);

    await importCsv(user, 'word,translation\nhaus,building\n', { duplicateStrategy: 'replace' });
    const res = await user.api('GET', '/api/flashcards/due?limit=100');
    const haus = (res.body.data.flashcards as { word: string; translation: string }[]).find(
      (c) => c.word.toLowerCase() === 'haus',
    );
    expect(haus?.translation).toBe('building');
    await expectIndexInStep(user.sub);
  });

  it('When user.deleted arrives, Then the user’s index is dropped and nothing of theirs is served', async () => {
    const user = newUserClient(service, clock);
    await user.api('POST', '/api/flashcards', sampleCard('gone'));
    expect(await dueWords(user)).toEqual(['gone']);
    await publish(service, 'user.deleted', { userId: user.sub });
    await waitFor(
      async () =>
        expect(await cardModel(service.deps.mongo.connection).countDocuments({ userId: user.sub })).toBe(0),
      { timeoutMs: 30_000 },
    );
    await waitFor(async () => expect((await indexOf(user.sub)).ready).toBe(false), { timeoutMs: 10_000 });
    expect(await dueWords(user)).toEqual([]);
    expect(await indexOf(user.sub)).toEqual({ ready: true, due: {}, fav: [] });
  });

  it('When the index keys are deleted (Redis flushed), Then concurrent reads rebuild it once from the database and answer correctly', async () => {
    const user = newUserClient(service, clock);
    for (const word of ['a1', 'a2', 'a3']) await user.api('POST', '/api/flashcards', sampleCard(word));
    await dueWords(user);
    const k = keys(user.sub);
    await redis().del(Object.values(k));
    expect((await indexOf(user.sub)).ready).toBe(false);

    const answers = await Promise.all(Array.from({ length: 8 }, () => dueWords(user)));
    for (const words of answers) expect(words.sort()).toEqual(['a1', 'a2', 'a3']);
    await expectIndexInStep(user.sub);
    expect(await redis().exists(k.lock)).toBe(0);
    // every rebuild bumps the generation once: one rebuild for the eight reads
    expect(await redis().get(k.gen)).toBe('1');
  });

  it("When another user's card id is planted in a user's index, Then it is never served and the index is rebuilt from the database", async () => {
    const alice = newUserClient(service, clock);
    const bob = newUserClient(service, clock);
    await alice.api('POST', '/api/flashcards', sampleCard('alice-word'));
    const bobsCard = (await bob.api('POST', '/api/flashcards', sampleCard('bob-word'))).body.data.id;
    expect(await dueWords(alice)).toEqual(['alice-word']);
    expect(await dueWords(bob)).toEqual(['bob-word']);

    await redis().zAdd(keys(alice.sub).due, { score: 0, value: bobsCard });
    expect(await dueWords(alice)).toEqual(['alice-word']);
    expect(await dueWords(alice)).toEqual(['alice-word']);
    await expectIndexInStep(alice.sub);
  });

  it('When the Redis write after a database write fails, Then the index is dropped and the next read rebuilds it with the new card', async () => {
    const user = newUserClient(service, clock);
    await user.api('POST', '/api/flashcards', sampleCard('before'));
    expect(await dueWords(user)).toEqual(['before']);
    const k = keys(user.sub);
    // a favourites key of the wrong type makes the index write fail (WRONGTYPE) after the insert
    await redis().set(k.fav, 'not a sorted set');
    const created = await user.api('POST', '/api/flashcards', sampleCard('after', { synonyms: [] }));
    expect(created.status).toBe(200);
    expect((await indexOf(user.sub).catch(() => ({ ready: false }))).ready).toBe(false);

    expect((await dueWords(user)).sort()).toEqual(['after', 'before']);
    await expectIndexInStep(user.sub);
  });

  it('When the due index is switched off, Then /due answers from the database alone', async () => {
    const off = await startFlashcards({ FLASHCARDS_DUE_INDEX: 'false' });
    try {
      const user = newUserClient(off.service, off.clock, randomUUID());
      await user.api('POST', '/api/flashcards', sampleCard('plain'));
      const res = await user.api('GET', '/api/flashcards/due');
      expect(res.body.data.flashcards.map((c: { word: string }) => c.word)).toEqual(['plain']);
      const k = dueIndexKeys(off.service.deps.mongo.connection.db!.databaseName, user.sub);
      expect(await redis().exists([k.ready, k.due])).toBe(0);
    } finally {
      await stopFlashcards(off.service);
    }
  });

  it('When Redis is unreachable, Then the repository still writes and answers due cards from the database', async () => {
    const handle = await connectRedis(redisUrl());
    const connection = service.deps.mongo.connection;
    const cards = cardRepository(
      connection,
      createDueIndex({
        client: handle.client,
        source: dueIndexSource(connection),
        logger: silentLogger(),
        namespace: connection.db!.databaseName,
        ttlSeconds: 600,
        waitMs: 1000,
      }),
    );
    await handle.close(); // every Redis command of this index now fails at once
    const userId = randomUUID();
    const now = clock.now();
    const card = (word: string, nextReviewDate: Date) => ({
      ...newCard({ word, translation: 't' }, { id: randomUUID(), userId, setId: null }, now),
      nextReviewDate,
    });
    await cards.insert(card('later', new Date(now.getTime() + DAY)));
    await cards.insert(card('sooner', now));

    const due = await cards.due(userId, { to: new Date(now.getTime() + 2 * DAY), limit: 10 });
    expect(due.map((c) => c.word)).toEqual(['sooner', 'later']);
    expect(await cards.countDue(userId, now)).toBe(1);
  });
});

describe('due read model: writes reaching Redis out of order', () => {
  it('When two writes of one card reach Redis in the opposite order of their database writes, Then the index keeps the newer one', async () => {
    const connection = service.deps.mongo.connection;
    const index = createDueIndex({
      client: redis(),
      source: dueIndexSource(connection),
      logger: silentLogger(),
      namespace: connection.db!.databaseName,
      ttlSeconds: 600,
      waitMs: 5_000,
    });
    // the index as the repository sees it, holding back the Redis update of the first reschedule
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let writes = 0;
    const reordering: DueIndex = {
      ...index,
      async cardsWritten(userId, written) {
        if (++writes === 2) await held;
        return index.cardsWritten(userId, written);
      },
    };
    const cards = cardRepository(connection, reordering);
    const userId = randomUUID();
    const now = clock.now();
    const at = (days: number) => new Date(now.getTime() + days * DAY);
    const card = {
      ...newCard({ word: 'reordered', translation: 't' }, { id: randomUUID(), userId, setId: null }, now),
      nextReviewDate: at(1),
    };
    await cards.insert(card); // write 1
    expect(await index.rebuild(userId)).toBe(true);

    const first = cards.update(userId, card.id, { nextReviewDate: at(2) }); // write 2, held after the database
    await waitFor(() => expect(writes).toBe(2));
    await cards.update(userId, card.id, { nextReviewDate: at(3) }); // write 3, in Redis first
    release();
    await first; // the older write reaches Redis last

    expect(await indexOf(userId)).toEqual(await truthOf(userId));
    const due = await cards.due(userId, { to: at(10), limit: 10 });
    expect(due.map((c) => c.nextReviewDate)).toEqual([at(3)]);
    expect(await cards.countDue(userId, at(2))).toBe(0);
  });
});

describe('decoded card memo', () => {
  it('When the cached text of a card is read again, Then the same frozen card is reused; changed text, or an evicted entry, decodes anew', () => {
    const decode = decodedCardMemo(2);
    const text = (word: string) =>
      JSON.stringify({ id: 'c1', word, nextReviewDate: '2026-05-10T00:00:00.000Z', tags: ['x'] });
    const a = decode('c1', text('a'));
    expect(a.nextReviewDate).toEqual(new Date('2026-05-10T00:00:00.000Z'));
    expect(Object.isFrozen(a) && Object.isFrozen(a.tags)).toBe(true);
    expect(decode('c1', text('a'))).toBe(a);
    // the card changed in the cache: its new text decodes anew and replaces the old entry
    const b = decode('c1', text('b'));
    expect(b).not.toBe(a);
    expect(b.word).toBe('b');
    expect(decode('c1', text('b'))).toBe(b);
    decode('c2', text('c'));
    decode('c3', text('d')); // c1 is the oldest of three: evicted
    const again = decode('c1', text('b'));
    expect(again).not.toBe(b);
    expect(again).toEqual(b);
  });
});
