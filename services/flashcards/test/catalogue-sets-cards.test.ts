import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import type { TestClock } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { DAY, newUserClient, startFlashcards, stopFlashcards } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

const newUser = () => newUserClient(service, clock);
type Api = ReturnType<typeof newUser>['api'];

const mkSet = async (api: Api, name: string, extra: Record<string, unknown> = {}) => {
  const res = await api('POST', '/api/flashcard-sets', { name, ...extra });
  expect(res.status).toBe(201);
  return res.body.data.set.id as string;
};
const mkCard = async (api: Api, setId: string, word: string, extra: Record<string, unknown> = {}) => {
  const res = await api('POST', '/api/flashcards', { setId, word, translation: `${word}-t`, ...extra });
  expect(res.status).toBe(201);
  return res.body.data.card.id as string;
};

describe('Group C /api/flashcard-sets', () => {
  it('When a set is created and read, Then the catalogue envelope with the set, its cards and stats', async () => {
    const { api } = newUser();
    const res = await api('POST', '/api/flashcard-sets', {
      name: 'Kitchen',
      description: 'things',
      color: '#4A90E2',
      tags: ['home'],
      isPublic: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      data: { set: { id: expect.any(String), name: 'Kitchen', tags: ['home'], color: '#4A90E2' } },
      meta: { timestamp: expect.any(String), requestId: expect.any(String) },
    });
    const setId = res.body.data.set.id;
    await mkCard(api, setId, 'pan', { tags: ['tools'] });
    const got = await api('GET', `/api/flashcard-sets/${setId}`);
    expect(got.body.data).toMatchObject({
      set: { id: setId },
      cards: [{ word: 'pan', setId, tags: ['tools'] }],
      stats: { totalCards: 1, masteredCards: 0, dueCards: 1, progress: 0 },
    });
  });

  it('When sets are listed, Then search, tags, orderBy and order apply, with page/limit/total/totalPages', async () => {
    const { api } = newUser();
    const a = await mkSet(api, 'Animals', { tags: ['nature'] });
    clock.advance(1000);
    const b = await mkSet(api, 'Body', { tags: ['nature', 'health'] });
    clock.advance(1000);
    const c = await mkSet(api, 'Cars');
    await mkCard(api, b, 'arm', {});
    await cardModel(service.deps.mongo.connection).updateMany({ setId: b }, { $set: { masteryLevel: 90 } });

    const names = async (q: string) =>
      (await api('GET', `/api/flashcard-sets?${q}`)).body.data.sets.map((s: { name: string }) => s.name);
    expect(await names('')).toEqual(['Cars', 'Body', 'Animals']);
    expect(await names('orderBy=name&order=asc')).toEqual(['Animals', 'Body', 'Cars']);
    expect(await names('orderBy=progress&order=desc')).toEqual(['Body', 'Animals', 'Cars']);
    expect(await names('tags=nature')).toEqual(['Body', 'Animals']);
    expect(await names('tags=nature,health')).toEqual(['Body']);
    expect(await names('search=car')).toEqual(['Cars']);
    const page2 = await api('GET', '/api/flashcard-sets?page=2&limit=2');
    expect(page2.body.data.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page2.body.data.sets.map((s: { id: string }) => s.id)).toEqual([a]);
    expect(c).toBeDefined();
    expect((await api('GET', '/api/flashcard-sets?limit=101')).status).toBe(400);
    expect((await api('GET', '/api/flashcard-sets?orderBy=size')).status).toBe(400);
  });

  it('When cards sit on the thresholds, Then set stats count mastered from 80 and due up to now, without archived cards or other sets, in the list and on the page', async () => {
    const { api } = newUser();
    const a = await mkSet(api, 'Edges');
    const b = await mkSet(api, 'Other');
    const empty = await mkSet(api, 'Empty');
    const now = clock.now();
    const Cards = cardModel(service.deps.mongo.connection);
    const card = async (setId: string, word: string, masteryLevel: number, dueInMs: number) => {
      const id = await mkCard(api, setId, word);
      await Cards.updateOne(
        { _id: id },
        { $set: { masteryLevel, nextReviewDate: new Date(now.getTime() + dueInMs) } },
      );
      return id;
    };
    await card(a, 'exactly-mastered-due-now', 80, 0);
    await card(a, 'not-mastered-due-later', 79, 1);
    await card(a, 'weak-overdue', 40, -DAY);
    const archived = await card(a, 'archived', 100, -DAY);
    expect((await api('DELETE', `/api/flashcards/${archived}`)).status).toBe(200);
    await card(b, 'other-set', 10, DAY);

    const expected = {
      [a]: { totalCards: 3, masteredCards: 1, dueCards: 2, progress: 66 }, // (80 + 79 + 40) / 3
      [b]: { totalCards: 1, masteredCards: 0, dueCards: 0, progress: 10 },
      [empty]: { totalCards: 0, masteredCards: 0, dueCards: 0, progress: 0 },
    };
    const listed = (await api('GET', '/api/flashcard-sets')).body.data.sets as {
      id: string;
      stats: unknown;
    }[];
    expect(Object.fromEntries(listed.map((s) => [s.id, s.stats]))).toEqual(expected);
    for (const id of [a, b, empty])
      expect((await api('GET', `/api/flashcard-sets/${id}`)).body.data.stats).toEqual(expected[id]);
  });

  it('When a set is updated or deleted, Then PUT changes it and DELETE removes it with deletedCount of its cards', async () => {
    const { api } = newUser();
    const setId = await mkSet(api, 'Old');
    const put = await api('PUT', `/api/flashcard-sets/${setId}`, { name: 'New', isPublic: true });
    expect(put.body.data.set).toMatchObject({ name: 'New', isPublic: true });
    await mkCard(api, setId, 'one');
    await mkCard(api, setId, 'two');
    const del = await api('DELETE', `/api/flashcard-sets/${setId}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ message: expect.any(String), deletedCount: 2 });
    expect(await cardModel(service.deps.mongo.connection).countDocuments({ setId })).toBe(0);
    expect((await api('GET', `/api/flashcard-sets/${setId}`)).status).toBe(404);
  });

  it("When another user's set is read, changed or deleted, Then 404 RES001 and nothing changes", async () => {
    const owner = newUser();
    const setId = await mkSet(owner.api, 'Private');
    const other = newUser();
    for (const [m, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
      const res = await other.api(m, `/api/flashcard-sets/${setId}`, body);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'RES001' });
    }
    expect((await owner.api('GET', `/api/flashcard-sets/${setId}`)).body.data.set.name).toBe('Private');
  });

  it('When set input is bad, Then 400 VAL001 with field details', async () => {
    const { api } = newUser();
    const res = await api('POST', '/api/flashcard-sets', { name: '', color: 'red', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VAL001',
      details: { name: expect.any(Array), color: expect.any(Array) },
    });
    expect((await api('GET', '/api/flashcard-sets/123')).status).toBe(400);
    expect((await api('PUT', `/api/flashcard-sets/${randomUUID()}`, {})).status).toBe(400);
  });
});

describe('Group C /api/flashcards', () => {
  it('When a card is created with a setId, Then 201 in the catalogue envelope; an unknown set is 404; a duplicate in the set is 409 RES002', async () => {
    const { api } = newUser();
    const setId = await mkSet(api, 'S');
    const res = await api('POST', '/api/flashcards', {
      setId,
      word: 'Hello',
      translation: 'Hallo',
      exampleSentence: 'Hello there',
      synonyms: ['hi'],
      tags: ['greeting'],
      difficulty: 'beginner',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        card: {
          setId,
          word: 'Hello',
          exampleSentence: 'Hello there',
          synonyms: ['hi'],
          difficulty: 'beginner',
        },
      },
      meta: { requestId: expect.any(String) },
    });
    const missingSet = await api('POST', '/api/flashcards', {
      setId: randomUUID(),
      word: 'x',
      translation: 'y',
    });
    expect(missingSet.status).toBe(404);
    expect(missingSet.body.error.code).toBe('RES001');
    const dup = await api('POST', '/api/flashcards', { setId, word: 'hello', translation: 'y' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('RES002');
    const bad = await api('POST', '/api/flashcards', {
      setId,
      word: 'x',
      translation: 'y',
      difficulty: 'expert',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VAL001', details: { difficulty: expect.any(Array) } });
  });

  it('When cards are listed with Group C filters, Then they apply and the pagination is {page, limit, total, totalPages}', async () => {
    const { api } = newUser();
    const s1 = await mkSet(api, 'S1');
    const s2 = await mkSet(api, 'S2');
    const a = await mkCard(api, s1, 'apple', { tags: ['fruit'], difficulty: 'beginner' });
    clock.advance(1000);
    const b = await mkCard(api, s1, 'Banana', { tags: ['fruit', 'yellow'], difficulty: 'intermediate' });
    clock.advance(1000);
    const c = await mkCard(api, s2, 'carrot', { difficulty: 'advanced' });
    await cardModel(service.deps.mongo.connection).updateOne(
      { _id: b },
      { $set: { masteryLevel: 85, isFavorite: true } },
    );
    await cardModel(service.deps.mongo.connection).updateOne(
      { _id: c },
      { $set: { nextReviewDate: new Date(clock.now().getTime() + 5 * DAY) } },
    );

    const ids = async (q: string) =>
      (await api('GET', `/api/flashcards?${q}`)).body.data.cards.map((x: { id: string }) => x.id);
    expect(await ids(`setId=${s1}`)).toEqual([b, a]);
    expect(await ids('tags=fruit,yellow&page=1')).toEqual([b]);
    expect(await ids('difficulty=advanced')).toEqual([c]);
    expect(await ids('mastered=true')).toEqual([b]);
    expect(await ids('mastered=false&limit=10')).toEqual([c, a]);
    expect(await ids('favorite=true')).toEqual([b]);
    expect(await ids('dueForReview=true')).toEqual([b, a]);
    expect(await ids('dueForReview=false')).toEqual([c]);
    expect(await ids('search=BANANA&page=1')).toEqual([b]); // Group C search ignores case
    const paged = await api('GET', '/api/flashcards?page=2&limit=2');
    expect(paged.body).toMatchObject({
      success: true,
      data: { pagination: { page: 2, limit: 2, total: 3, totalPages: 2 } },
      meta: { requestId: expect.any(String) },
    });
    expect(paged.body.data.cards.map((x: { id: string }) => x.id)).toEqual([a]);
    const bad = await api('GET', '/api/flashcards?page=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VAL001');
    expect((await api('GET', '/api/flashcards?limit=1000')).status).toBe(400);
  });

  it('When a card is updated with Group C fields, Then the change (and a move to another own set) applies; a foreign set is 404', async () => {
    const { api } = newUser();
    const s1 = await mkSet(api, 'A');
    const s2 = await mkSet(api, 'B');
    const id = await mkCard(api, s1, 'word');
    const res = await api('PUT', `/api/flashcards/${id}`, {
      tags: ['x'],
      exampleSentence: 'a word here',
      setId: s2,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.card).toMatchObject({ setId: s2, tags: ['x'], exampleSentence: 'a word here' });
    const foreignSet = await mkSet(newUser().api, 'theirs');
    expect((await api('PUT', `/api/flashcards/${id}`, { setId: foreignSet })).status).toBe(404);
  });

  it('When a batch mixes good and bad items, Then each item succeeds or fails alone with per-item errors', async () => {
    const { api } = newUser();
    const s1 = await mkSet(api, 'A');
    const s2 = await mkSet(api, 'B');
    const created = await api('POST', '/api/flashcards/batch', {
      operation: 'create',
      targetSetId: s1,
      data: [
        { word: 'one', translation: '1' },
        { word: 'two' },
        { word: 'three', translation: '3', tags: ['n'] },
        { word: 'ONE', translation: 'dup' },
      ],
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      success: 2,
      failed: 2,
      errors: [
        { index: 1, code: 'VAL001', details: { translation: expect.any(Array) } },
        { index: 3, code: 'RES002' },
      ],
    });
    const [one, three] = created.body.data.cards.map((c: { id: string }) => c.id);
    const other = newUser();
    const foreign = await mkCard(other.api, await mkSet(other.api, 'x'), 'w');

    const moved = await api('POST', '/api/flashcards/batch', {
      operation: 'move',
      cardIds: [one, foreign],
      targetSetId: s2,
    });
    expect(moved.body.data).toMatchObject({
      success: 1,
      failed: 1,
      errors: [{ index: 1, cardId: foreign, code: 'RES001' }],
    });

    const updated = await api('POST', '/api/flashcards/batch', {
      operation: 'update',
      cardIds: [one, three],
      data: { difficulty: 'advanced' },
    });
    expect(updated.body.data).toMatchObject({ success: 2, failed: 0, errors: [] });

    const deleted = await api('POST', '/api/flashcards/batch', { operation: 'delete', cardIds: [three] });
    expect(deleted.body.data).toMatchObject({ success: 1, failed: 0 });
    const list = await api('GET', `/api/flashcards?setId=${s2}`);
    expect(list.body.data.cards).toEqual([
      expect.objectContaining({ id: one, setId: s2, difficulty: 'advanced' }),
    ]);
    expect((await api('GET', `/api/flashcards?setId=${s1}`)).body.data.pagination.total).toBe(0);

    const bad = await api('POST', '/api/flashcards/batch', { operation: 'explode', cardIds: [one] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VAL001');
    const tooMany = await api('POST', '/api/flashcards/batch', {
      operation: 'delete',
      cardIds: Array.from({ length: 101 }, () => randomUUID()),
    });
    expect(tooMany.status).toBe(400);
  });

  it('When no token is sent to a Group C request, Then 401 in the catalogue envelope', async () => {
    const res = await fetch(`${service.httpUrl}/api/flashcards?page=1`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'AUTH003' },
      meta: expect.any(Object),
    });
  });
});

describe('OpenAPI fragment', () => {
  it('When the gateway asks for the service document, Then every route of the service is described from its schemas', async () => {
    const res = await fetch(`${service.httpUrl}/internal/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, method] of [
      ['/api/flashcards', 'get'],
      ['/api/flashcards/{id}/review', 'post'],
      ['/api/flashcards/batch', 'post'],
      ['/api/flashcard-sets/{setId}', 'delete'],
      ['/api/learning/review', 'post'],
      ['/api/study/record-test', 'post'],
    ] as const)
      expect(doc.paths[path]?.[method]).toBeDefined();
  });
});
