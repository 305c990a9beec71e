import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { createGrpcClient, devCallSigner, type GrpcClient } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { type TestClock, waitFor } from '@lingua/testing';
import { type CardCountersDoc, cardCountersModel } from '../src/data-access/card-counters.model';
import { cardModel } from '../src/data-access/card.model';
import { newCard } from '../src/domain/cards/card-fields';
import { MASTERED_AT } from '../src/domain/scheduling/mastery';
import { flashcardsDeps } from '../src/start';
import {
  DAY,
  newUserClient,
  publish,
  type Reply,
  sampleCard,
  startFlashcards,
  stopFlashcards,
} from './support';

// the machine is shared and often loaded: generous per-test time, no timing assertions
jest.setTimeout(120_000);

type FlashcardsService = ReturnType<typeof loadPackage>['lingua']['flashcards']['v1']['FlashcardsService'];

let service: RunningService;
let clock: TestClock;
let grpc: GrpcClient<FlashcardsService['service']>;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
  grpc = createGrpcClient(loadPackage().lingua.flashcards.v1.FlashcardsService, service.grpcAddress!, {
    signer: devCallSigner('identity'), // the one service that calls GetCardStats
  });
}, 60_000);
afterAll(async () => {
  grpc?.close();
  await stopFlashcards(service);
});

const conn = () => service.deps.mongo.connection;
const counterDoc = (userId: string) =>
  cardCountersModel(conn()).collection.findOne<CardCountersDoc>({ _id: userId } as never);

/** The truth, counted over the cards themselves. */
async function truth(userId: string) {
  const Cards = cardModel(conn());
  const active = { userId, isArchived: false };
  return {
    total: await Cards.countDocuments(active),
    mastered: await Cards.countDocuments({ ...active, masteryLevel: { $gte: MASTERED_AT } }),
    favorite: await Cards.countDocuments({ ...active, isFavorite: true }),
  };
}

async function stats(userId: string) {
  const s = await grpc.call('GetCardStats', { user_id: userId });
  return { total: s.total_cards, mastered: s.mastered_cards, favorite: s.favorite_cards, due: s.due_cards };
}

/** A user with helpers for the writes under test; `expectCounts` checks document, truth and RPC alike. */
function counting() {
  const user = newUserClient(service, clock);
  let version = -1;
  const ok = async (res: Promise<Reply>) => {
    const r = await res;
    expect([200, 201]).toContain(r.status);
    return r.body;
  };
  return {
    user,
    ok,
    createB: async (word: string, extra: Record<string, unknown> = {}) =>
      (await ok(user.api('POST', '/api/flashcards', sampleCard(word, extra)))).data.id as string,
    createC: async (setId: string, word: string) =>
      (await ok(user.api('POST', '/api/flashcards', { setId, word, translation: `${word}-t` }))).data.card
        .id as string,
    /**
     * The stored counters equal `expected`, and so do the cards and GetCardStats. `changed`: the
     * write under test moved the counters by $inc (version up), or left them alone (version same);
     * a drop and rebuild would start the version again.
     */
    async expectCounts(expected: { total: number; mastered: number; favorite: number }, changed: boolean) {
      const doc = await counterDoc(user.sub);
      expect(doc).toMatchObject({ ready: true, ...expected });
      if (changed) expect(doc!.version).toBeGreaterThan(version);
      else expect(doc!.version).toBe(version);
      version = doc!.version;
      expect(await truth(user.sub)).toEqual(expected);
      expect(await stats(user.sub)).toMatchObject(expected);
    },
  };
}

async function importCsv(auth: Record<string, string>, csv: string, duplicateStrategy: string) {
  const form = new FormData();
  form.append('duplicateStrategy', duplicateStrategy);
  form.append('file', new Blob([csv]), 'words.csv');
  const res = await fetch(`${service.httpUrl}/api/import/cards`, {
    method: 'POST',
    headers: auth,
    body: form,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { created: number; replaced: number } }).data;
}

describe('card counters follow the card writes', () => {
  it('When cards are created, favourited, mastered, reviewed, edited, deleted and imported, Then the counters change by exactly that, never recounted', async () => {
    const c = counting();
    const a = await c.createB('apple');
    // the first read builds the document from a count; from here on every write moves it
    expect(await stats(c.user.sub)).toEqual({ total: 1, mastered: 0, favorite: 0, due: 1 });
    await c.expectCounts({ total: 1, mastered: 0, favorite: 0 }, true);

    await c.createB('bread', { masteryLevel: 90 });
    await c.expectCounts({ total: 2, mastered: 1, favorite: 0 }, true);

    const setId = (await c.ok(c.user.api('POST', '/api/flashcard-sets', { name: 'Kitchen' }))).data.set
      .id as string;
    const cup = await c.createC(setId, 'cup');
    await c.expectCounts({ total: 3, mastered: 1, favorite: 0 }, true);

    const batch = await c.ok(
      c.user.api('POST', '/api/flashcards/batch', {
        operation: 'create',
        targetSetId: setId,
        data: [
          { word: 'fork', translation: 'Gabel' },
          { word: 'knife', translation: 'Messer' },
        ],
      }),
    );
    const [fork] = batch.data.cards.map((card: { id: string }) => card.id) as string[];
    await c.expectCounts({ total: 5, mastered: 1, favorite: 0 }, true);

    await c.ok(c.user.api('POST', `/api/flashcards/${a}/favorite`));
    await c.expectCounts({ total: 5, mastered: 1, favorite: 1 }, true);
    await c.ok(c.user.api('POST', `/api/flashcards/${a}/favorite`));
    await c.expectCounts({ total: 5, mastered: 1, favorite: 0 }, true);
    await c.ok(c.user.api('POST', `/api/flashcards/${a}/favorite`));
    await c.expectCounts({ total: 5, mastered: 1, favorite: 1 }, true);

    // mastery set by an edit (Group B accepts masteryLevel); a content-only edit changes nothing
    await c.ok(c.user.api('PUT', `/api/flashcards/${a}`, sampleCard('apple', { masteryLevel: 95 })));
    await c.expectCounts({ total: 5, mastered: 2, favorite: 1 }, true);
    await c.ok(c.user.api('PUT', `/api/flashcards/${a}`, sampleCard('apples', { masteryLevel: 95 })));
    await c.expectCounts({ total: 5, mastered: 2, favorite: 1 }, false);

    // mastery by reviews: counted once it reaches mastered, uncounted when a wrong answer drops it
    let mastery = 0;
    // each answer on the day the card falls due (an earlier right answer moves no mastery)
    let waited = 0;
    try {
      for (let i = 0; i < 10 && mastery < MASTERED_AT; i++) {
        const answer = (await c.ok(c.user.api('POST', '/api/learning/review', { cardId: cup, rating: 5 })))
          .data;
        mastery = answer.masteryLevel;
        clock.advance(answer.interval * DAY);
        waited += answer.interval * DAY;
        if (mastery < MASTERED_AT) await c.expectCounts({ total: 5, mastered: 2, favorite: 1 }, false);
      }
    } finally {
      clock.advance(-waited);
    }
    await c.expectCounts({ total: 5, mastered: 3, favorite: 1 }, true);
    await c.ok(c.user.api('POST', '/api/learning/review', { cardId: cup, rating: 1 }));
    await c.expectCounts({ total: 5, mastered: 2, favorite: 1 }, true);

    // deleting archives: the card stops counting in every counter it was in
    await c.ok(c.user.api('DELETE', `/api/flashcards/${a}`));
    await c.expectCounts({ total: 4, mastered: 1, favorite: 0 }, true);
    await c.ok(c.user.api('POST', '/api/flashcards/batch', { operation: 'delete', cardIds: [fork] }));
    await c.expectCounts({ total: 3, mastered: 1, favorite: 0 }, true);

    const csv = 'word,translation\nDach,roof\nTür,door\nWand,wall\n';
    expect(await importCsv(c.user.auth(), csv, 'skip')).toMatchObject({ created: 3 });
    await c.expectCounts({ total: 6, mastered: 1, favorite: 0 }, true);
    // replacing content of existing words leaves the counts alone
    expect(await importCsv(c.user.auth(), csv, 'replace')).toMatchObject({ created: 0, replaced: 3 });
    await c.expectCounts({ total: 6, mastered: 1, favorite: 0 }, false);

    // deleting the set removes its active cards (cup, knife; fork was archived already)
    await c.ok(c.user.api('DELETE', `/api/flashcard-sets/${setId}`));
    await c.expectCounts({ total: 4, mastered: 1, favorite: 0 }, true);
  });

  it('When many writes for one user run at once, Then no change is lost', async () => {
    const c = counting();
    await c.createB('seed');
    await stats(c.user.sub); // builds the document, so the writes below all go through $inc
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => c.createB(`word${i}`)));
    await Promise.all([
      ...ids.slice(0, 6).map((id) => c.ok(c.user.api('POST', `/api/flashcards/${id}/favorite`))),
      ...ids.slice(6, 9).map((id) => c.ok(c.user.api('DELETE', `/api/flashcards/${id}`))),
    ]);
    await c.expectCounts({ total: 10, mastered: 0, favorite: 6 }, true);
  });
});

describe('self-healing counters', () => {
  /** Cards written straight to the database: data from before the counters existed. */
  async function seedLegacyCards(userId: string, cards: Record<string, unknown>[]) {
    const now = clock.now();
    await cardModel(conn()).collection.insertMany(
      cards.map((extra, i) => {
        const { id, ...card } = newCard(
          { word: `legacy${i}`, translation: 't' },
          { id: randomUUID(), userId, setId: null },
          now,
        );
        return { _id: id, ...card, wordKey: card.word, ...extra };
      }) as never[],
    );
  }

  it('When a user has cards but no counter document, Then the first read rebuilds it once from a count and later writes keep it', async () => {
    const c = counting();
    await seedLegacyCards(c.user.sub, [
      {},
      { isFavorite: true },
      { isFavorite: true, masteryLevel: 85 },
      { masteryLevel: 20 },
      { isArchived: true, isFavorite: true, masteryLevel: 100 },
    ]);
    expect(await counterDoc(c.user.sub)).toBeNull();

    expect(await stats(c.user.sub)).toMatchObject({ total: 4, mastered: 1, favorite: 2 });
    expect(await counterDoc(c.user.sub)).toMatchObject({ ready: true, total: 4, mastered: 1, favorite: 2 });

    // reads now come from the document, not a count: a card slipped in behind its back is not seen
    await seedLegacyCards(c.user.sub, [{}]);
    expect(await stats(c.user.sub)).toMatchObject({ total: 4 });
    // while writes through the service move it
    await c.createB('fresh');
    expect(await counterDoc(c.user.sub)).toMatchObject({ total: 5 });
  });

  it('When the counters are impossible or a rebuild was left unfinished, Then the next read recounts', async () => {
    const c = counting();
    await c.createB('one', { masteryLevel: 90 });
    await c.createB('two');
    const Counters = cardCountersModel(conn()).collection;
    await stats(c.user.sub);

    await Counters.updateOne({ _id: c.user.sub } as never, { $set: { total: 1, mastered: 2 } });
    expect(await stats(c.user.sub)).toMatchObject({ total: 2, mastered: 1, favorite: 0 });
    expect(await counterDoc(c.user.sub)).toMatchObject({ ready: true, total: 2, mastered: 1 });

    // a rebuild that crashed after writing its placeholder
    await Counters.updateOne({ _id: c.user.sub } as never, {
      $set: { ready: false, version: 7, total: 999, mastered: 0, favorite: 0 },
    });
    expect(await stats(c.user.sub)).toMatchObject({ total: 2, mastered: 1, favorite: 0 });
    expect(await counterDoc(c.user.sub)).toMatchObject({ ready: true, total: 2, mastered: 1 });
  });

  it('When an import fails part-way and is rolled back, Then the counters are dropped and the next read counts what is left', async () => {
    const c = counting();
    const existing = await c.createB('Bestand');
    await stats(c.user.sub);
    // the rollback deletes only cards stamped within the import's time: the older card stays
    clock.advance(60_000);
    const store = flashcardsDeps(service.deps, clock).portability;
    const now = clock.now();
    const fresh = ['neu1', 'neu2'].map((word, i) =>
      newCard(
        { word, translation: 't' },
        { id: randomUUID(), userId: c.user.sub, setId: null },
        new Date(now.getTime() + i),
      ),
    );
    // the last card collides with an existing id: the insert fails after the first was written
    await expect(store.apply(c.user.sub, [fresh[0]!, { ...fresh[1]!, id: existing }], [])).rejects.toThrow();

    expect(await counterDoc(c.user.sub)).toBeNull();
    expect(await stats(c.user.sub)).toMatchObject({ total: 1 });
    expect(await truth(c.user.sub)).toMatchObject({ total: 1 });
  });

  it('When a user has no cards, Then the answer is zeros and no document is kept', async () => {
    const c = counting();
    expect(await stats(c.user.sub)).toEqual({ total: 0, mastered: 0, favorite: 0, due: 0 });
    expect(await counterDoc(c.user.sub)).toBeNull();
  });

  it("When the user is deleted, Then the user's counter document is erased with the cards", async () => {
    const c = counting();
    await c.createB('gone');
    const kept = counting();
    await kept.createB('kept');
    await stats(c.user.sub);
    await stats(kept.user.sub);
    expect(await counterDoc(c.user.sub)).not.toBeNull();

    await publish(service, 'user.deleted', { userId: c.user.sub });

    await waitFor(async () => {
      expect(await counterDoc(c.user.sub)).toBeNull();
      expect(await truth(c.user.sub)).toMatchObject({ total: 0 });
    });
    expect(await counterDoc(kept.user.sub)).toMatchObject({ total: 1 });
  });
});
