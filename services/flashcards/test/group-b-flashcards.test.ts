import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { streamFor, subjectFor } from '@lingua/events';
import type { TestClock } from '@lingua/testing';
import { waitFor } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { call, DAY, newUserClient, sampleCard, startFlashcards, stopFlashcards, tokenFor } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

const newUser = () => {
  const u = newUserClient(service, clock);
  return { ...u, auth: u.auth() };
};

describe('Group B /api/flashcards: identity', () => {
  it('When no token is sent and dev mode is off, Then 401 with a plain-text error', async () => {
    const res = await call(service, 'GET', '/api/flashcards');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.any(String) });
  });

  it('When the token is forged or revoked, Then 401', async () => {
    const forged = await call(service, 'GET', '/api/flashcards', {
      headers: { authorization: 'Bearer abc.def.ghi' },
    });
    expect(forged.status).toBe(401);
    const { jti, auth } = tokenFor(service, clock);
    // revoked the way the identity service revokes (key, index and announcement), as a logout does
    const { createTokenBlacklist } = await import('@lingua/auth');
    await createTokenBlacklist(service.deps.redis!.client, clock).revoke(
      jti,
      Math.floor(clock.now().getTime() / 1000) + 60,
    );
    const revoked = await call(service, 'GET', '/api/flashcards', { headers: auth });
    expect(revoked.status).toBe(401);
  });
});

describe('Group B /api/flashcards: create, read, update, delete', () => {
  it('When a card is created, Then 200 returns it with defaults, synonyms as an array and stored as JSON text', async () => {
    const { api, sub } = newUser();
    const res = await api('POST', '/api/flashcards', {
      ...sampleCard('Apple'),
      partOfSpeech: 'noun',
      synonyms: ['pome'],
      difficultyLevel: 'A1',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: expect.any(String),
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        word: 'Apple',
        synonyms: ['pome'],
        masteryLevel: 0,
        timesReviewed: 0,
        isFavorite: false,
        difficultyLevel: 'A1',
        easinessFactor: 2.5,
        repetitions: 0,
        intervalDays: 1,
        timesCorrect: 0,
        nextReviewDate: clock.now().toISOString(),
        createdAt: clock.now().toISOString(),
      },
    });
    const stored = await cardModel(service.deps.mongo.connection).findById(res.body.data.id).lean();
    expect(stored).toMatchObject({ userId: sub, synonyms: '["pome"]', isArchived: false, setId: null });
  });

  it('When the same word is created again in another case, Then 200 with success false, isDuplicate and the existing card', async () => {
    const { api } = newUser();
    const first = await api('POST', '/api/flashcards', sampleCard('House'));
    const dup = await api('POST', '/api/flashcards', sampleCard('hOUSE'));
    expect(dup.status).toBe(200);
    expect(dup.body).toMatchObject({
      success: false,
      error: expect.any(String),
      isDuplicate: true,
      existingCard: { id: first.body.data.id, word: 'House' },
    });
    // once the first is deleted (archived), the word is free again
    expect((await api('DELETE', `/api/flashcards/${first.body.data.id}`)).status).toBe(200);
    const again = await api('POST', '/api/flashcards', sampleCard('house'));
    expect(again.body.success).toBe(true);
  });

  it('When another user holds the same word, Then it is not a duplicate', async () => {
    await newUser().api('POST', '/api/flashcards', sampleCard('shared'));
    const res = await newUser().api('POST', '/api/flashcards', sampleCard('shared'));
    expect(res.body.success).toBe(true);
  });

  it.each([
    ['a word over 255 characters', sampleCard('x'.repeat(256))],
    ['a missing translation', { word: 'w', definition: 'd' }],
    ['a wrong type', { ...sampleCard('w'), synonyms: 'not-an-array' }],
    ['an unknown field', { ...sampleCard('w'), userId: randomUUID() }],
    ['a $ operator', { ...sampleCard('w'), word: { $gt: '' } }],
    ['a partOfSpeech over 50', { ...sampleCard('w'), partOfSpeech: 'p'.repeat(51) }],
    ['a pronunciation over 255', { ...sampleCard('w'), pronunciation: 'p'.repeat(256) }],
    ['a non-CEFR difficultyLevel', { ...sampleCard('w'), difficultyLevel: 'Z9' }],
    ['a masteryLevel over 100', { ...sampleCard('w'), masteryLevel: 101 }],
  ])('When the body has %s, Then 400 with a text error', async (_name, body) => {
    const res = await newUser().api('POST', '/api/flashcards', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.any(String) });
  });

  it('When the body is not JSON or far too large, Then 400 / 413, never 500', async () => {
    const { auth } = newUser();
    const bad = await call(service, 'POST', '/api/flashcards', { headers: auth, body: '{"word":' });
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    const huge = await call(service, 'POST', '/api/flashcards', {
      headers: auth,
      body: sampleCard('x'.repeat(200_000)),
    });
    expect(huge.status).toBe(413);
  });

  it('When a card is read by id, Then the full card; a bad GUID is 400; a missing or foreign card is 404', async () => {
    const owner = newUser();
    const created = await owner.api('POST', '/api/flashcards', sampleCard('tree'));
    const id = created.body.data.id;
    const got = await owner.api('GET', `/api/flashcards/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id, word: 'tree', easinessFactor: 2.5, filledQuestionText: null });
    expect((await owner.api('GET', '/api/flashcards/not-a-guid')).status).toBe(400);
    const missing = await owner.api('GET', `/api/flashcards/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'Flashcard not found' });
    const foreign = await newUser().api('GET', `/api/flashcards/${id}`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('tree');
  });

  it('When a card is updated, Then the new fields and a new updatedAt; a foreign card is 404 and unchanged', async () => {
    const { api } = newUser();
    const created = await api('POST', '/api/flashcards', sampleCard('car'));
    const id = created.body.data.id;
    clock.advance(60_000);
    const res = await api('PUT', `/api/flashcards/${id}`, {
      ...sampleCard('car'),
      translation: 'Auto',
      synonyms: ['automobile'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: expect.any(String),
      data: { id, translation: 'Auto', synonyms: ['automobile'], updatedAt: clock.now().toISOString() },
    });
    const foreign = await newUser().api('PUT', `/api/flashcards/${id}`, sampleCard('hack'));
    expect(foreign.status).toBe(404);
    expect((await api('GET', `/api/flashcards/${id}`)).body.data.word).toBe('car');
  });

  it('When a card is deleted, Then it is archived and update, delete, favorite and get answer 404', async () => {
    const { api } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('gone'))).body.data.id;
    const del = await api('DELETE', `/api/flashcards/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, message: expect.any(String) });
    const stored = await cardModel(service.deps.mongo.connection).findById(id).lean();
    expect(stored?.isArchived).toBe(true);
    expect((await api('PUT', `/api/flashcards/${id}`, sampleCard('gone'))).status).toBe(404);
    expect((await api('DELETE', `/api/flashcards/${id}`)).status).toBe(404);
    expect((await api('POST', `/api/flashcards/${id}/favorite`)).status).toBe(404);
    expect((await api('GET', `/api/flashcards/${id}`)).status).toBe(404);
    expect((await api('GET', '/api/flashcards')).body.data.count).toBe(0);
  });

  it('When favorite is posted twice, Then the flag flips each time and the response gives the new value', async () => {
    const { api } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('star'))).body.data.id;
    const on = await api('POST', `/api/flashcards/${id}/favorite`);
    expect(on.body).toMatchObject({ success: true, data: { isFavorite: true }, message: expect.any(String) });
    const off = await api('POST', `/api/flashcards/${id}/favorite`);
    expect(off.body.data).toEqual({ isFavorite: false });
  });
});

describe('Group B /api/flashcards: list', () => {
  it('When listing, Then newest first with count; search is a case-sensitive literal substring of word, translation or definition; favoritesOnly filters', async () => {
    const { api } = newUser();
    const ids: string[] = [];
    for (const [word, extra] of [
      ['alpha', { definition: 'first letter' }],
      ['a.c', { translation: 'dots' }],
      ['abc', { translation: 'Letters' }],
      ['zeta', { definition: 'last (letter)' }],
    ] as const) {
      clock.advance(1000);
      ids.push((await api('POST', '/api/flashcards', { ...sampleCard(word), ...extra })).body.data.id);
    }
    await api('POST', `/api/flashcards/${ids[0]}/favorite`);

    const all = await api('GET', '/api/flashcards');
    expect(all.body.data.count).toBe(4);
    expect(all.body.data.flashcards.map((c: { word: string }) => c.word)).toEqual([
      'zeta',
      'abc',
      'a.c',
      'alpha',
    ]);
    expect(all.body.data.flashcards[0]).not.toHaveProperty('userId');

    const words = async (q: string) =>
      (await api('GET', `/api/flashcards?${q}`)).body.data.flashcards.map((c: { word: string }) => c.word);
    expect(await words('search=a.c')).toEqual(['a.c']); // the dot is literal
    expect(await words('search=Letters')).toEqual(['abc']); // translation
    expect(await words('search=letters')).toEqual([]); // case-sensitive
    expect(await words(`search=${encodeURIComponent('(letter)')}`)).toEqual(['zeta']); // definition, parentheses literal
    expect(await words('favoritesOnly=true')).toEqual(['alpha']);
  });

  it('When the query has an unknown parameter, a $ operator or a bad boolean, Then 400', async () => {
    const { api } = newUser();
    expect((await api('GET', '/api/flashcards?search[$ne]=x')).status).toBe(400);
    expect((await api('GET', '/api/flashcards?favoritesOnly=maybe')).status).toBe(400);
    expect((await api('GET', '/api/flashcards?sort=word')).status).toBe(400);
  });
});

describe('Group B /api/flashcards: scheduling', () => {
  it('When reviews come in, Then the interval grows as 2^n days, a wrong answer resets it, and card.reviewed is published', async () => {
    const { api, sub } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('grow'))).body.data.id;
    const r1 = await api('POST', `/api/flashcards/${id}/review`, { confidence: 1 });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({
      wasCorrect: true,
      intervalDays: 2,
      repetitions: 1,
      masteryLevel: 15,
      nextReviewDate: new Date(clock.now().getTime() + 2 * DAY).toISOString(),
    });
    // answered again at once (a repeat): recorded, but it earns no interval
    const early = await api('POST', `/api/flashcards/${id}/review`, { confidence: 2 });
    expect(early.body.data).toMatchObject({ intervalDays: 2, repetitions: 1, masteryLevel: 15 });
    // answered on the day it falls due: 2^2
    clock.advance(2 * DAY);
    let r2;
    try {
      r2 = await api('POST', `/api/flashcards/${id}/review`, { confidence: 2 });
    } finally {
      clock.advance(-2 * DAY);
    }
    expect(r2.body.data).toMatchObject({ intervalDays: 4, repetitions: 2, easinessFactor: 2.65 });
    const r3 = await api('POST', `/api/flashcards/${id}/review`, { confidence: 0 });
    expect(r3.body.data).toMatchObject({ wasCorrect: false, intervalDays: 1, repetitions: 0 });
    expect(r3.body.data.flashcard).toMatchObject({
      timesReviewed: 4, // the early repeat is counted too
      timesCorrect: 3,
      lastReviewedAt: clock.now().toISOString(),
    });

    const stream = streamFor(service.deps.bus, 'card.reviewed');
    await waitFor(async () => {
      const msg = await service.deps.nats.jsm.streams.getMessage(stream, {
        last_by_subj: subjectFor(service.deps.bus, 'card.reviewed'),
      });
      expect(msg?.json()).toMatchObject({
        event: 'card.reviewed',
        data: { userId: sub, cardId: id, correct: false },
      });
    });
  });

  it('When the review body is wrong, Then 400; for a foreign card, 404', async () => {
    const { api } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('rv'))).body.data.id;
    expect((await api('POST', `/api/flashcards/${id}/review`, { confidence: 3 })).status).toBe(400);
    expect((await api('POST', `/api/flashcards/${id}/review`, { confidence: '1' })).status).toBe(400);
    expect((await newUser().api('POST', `/api/flashcards/${id}/review`, { confidence: 1 })).status).toBe(404);
  });

  it('When cards are due, overdue or later, Then due filters by today/overdue/favorites with a review status, and next-review gives the earliest', async () => {
    const { api } = newUser();
    const mk = async (w: string, level?: string) =>
      (await api('POST', '/api/flashcards', sampleCard(w, level ? { difficultyLevel: level } : {}))).body.data
        .id;
    const old = await mk('old', 'B2');
    const later = await mk('later');
    await api('POST', `/api/flashcards/${later}/review`, { confidence: 1 }); // due in 2 days
    clock.advance(3 * DAY); // "old" (created 3 days ago) is overdue by 3 days; "later" by 1
    const fresh = await mk('fresh'); // due now: today
    await api('POST', `/api/flashcards/${fresh}/favorite`);

    const due = await api('GET', '/api/flashcards/due');
    expect(due.status).toBe(200);
    expect(due.body.data.count).toBe(3);
    expect(due.body.data.flashcards.map((c: { id: string }) => c.id)).toEqual([old, later, fresh]);
    expect(due.body.data.flashcards[0].reviewStatus).toMatchObject({
      status: 'overdue',
      overdueDays: 3,
      label: 'Overdue by 3 days',
    });
    expect(due.body.data.flashcards[2].reviewStatus).toMatchObject({ status: 'due_today', overdueDays: 0 });

    const ids = async (q: string) =>
      (await api('GET', `/api/flashcards/due?${q}`)).body.data.flashcards.map((c: { id: string }) => c.id);
    expect(await ids('includeOverdue=false')).toEqual([fresh]);
    expect(await ids('includeToday=false')).toEqual([old, later]);
    expect(await ids('includeToday=false&includeOverdue=false')).toEqual([]);
    expect(await ids('favoritesOnly=true')).toEqual([fresh]);
    expect(await ids('limit=1')).toEqual([old]);
    expect((await api('GET', '/api/flashcards/due?limit=0')).status).toBe(400);
    expect((await api('GET', '/api/flashcards/due?limit=abc')).status).toBe(400);

    const next = await api('GET', '/api/flashcards/next-review');
    expect(next.body.data).toMatchObject({
      flashcard: { id: old },
      isDue: true,
      isOverdue: true,
      overdueDays: 3,
      level: 'B2',
      levelNumber: 4,
    });
  });

  it('When a user has no cards, Then next-review answers 200 with no card', async () => {
    const res = await newUser().api('GET', '/api/flashcards/next-review');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: null });
  });
});

describe('Group B /api/flashcards: question selection and generation', () => {
  it('When an A1 learner asks, Then no complex question type is chosen or offered', async () => {
    const { api } = newUser();
    const id = (
      await api('POST', '/api/flashcards', sampleCard('cat', { difficultyLevel: 'A1', masteryLevel: 90 }))
    ).body.data.id;
    const res = await api('POST', `/api/flashcards/${id}/optimal-review-mode`, { learnerLevel: 'A1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ situation: 'a1_learner', learnerLevel: 'A1', wordLevel: 'A1' });
    expect(res.body.data.availableTypes).not.toContain('typing');
    expect(res.body.data.availableTypes).not.toContain('sentence_construction');
    expect(res.body.data.availableTypes).toContain(res.body.data.questionType);
    // an A1 learner cannot force a complex type either
    const forced = await api('POST', `/api/flashcards/${id}/question`, {
      learnerLevel: 'A1',
      questionType: 'typing',
    });
    expect(forced.status).toBe(400);
  });

  it('When a C1 learner reviews an A2 word they know, Then a production type for a word below their level', async () => {
    const { api } = newUser();
    const id = (
      await api('POST', '/api/flashcards', sampleCard('dog', { difficultyLevel: 'A2', masteryLevel: 60 }))
    ).body.data.id;
    const res = await api('POST', `/api/flashcards/${id}/optimal-review-mode`, { learnerLevel: 'C1' });
    expect(res.body.data).toMatchObject({ situation: 'word_below_level', questionType: 'typing' });
    expect(
      (await api('POST', `/api/flashcards/${id}/optimal-review-mode`, { learnerLevel: 'Z1' })).status,
    ).toBe(400);
  });

  it('When a fill-in-the-blank question is generated, Then the inflected form is blanked and the text is stored on the card', async () => {
    const { api } = newUser();
    const id = (
      await api(
        'POST',
        '/api/flashcards',
        sampleCard('run', { example: 'Yesterday she ran to the station.' }),
      )
    ).body.data.id;
    const res = await api('POST', `/api/flashcards/${id}/question`, { questionType: 'fill_in_blank' });
    expect(res.status).toBe(200);
    expect(res.body.data.question).toMatchObject({
      questionType: 'fill_in_blank',
      questionText: 'Yesterday she _____ to the station.',
      correctAnswer: 'ran',
    });
    expect((await api('GET', `/api/flashcards/${id}`)).body.data.filledQuestionText).toBe(
      'Yesterday she _____ to the station.',
    );
  });

  it('When the word holds a hyphen, Then the fill-in-the-blank question is built (the RegExp used to throw: 500)', async () => {
    const { api } = newUser();
    const id = (
      await api('POST', '/api/flashcards', sampleCard('well-known', { example: 'A well-known fact.' }))
    ).body.data.id;
    const res = await api('POST', `/api/flashcards/${id}/question`, { questionType: 'fill_in_blank' });
    expect(res.status).toBe(200);
    expect(res.body.data.question).toMatchObject({
      questionText: 'A _____ fact.',
      correctAnswer: 'well-known',
    });
  });

  it('When a multiple-choice question is generated, Then the options hold the right translation and distractors from other cards', async () => {
    const { api } = newUser();
    for (const w of ['one', 'two', 'three']) await api('POST', '/api/flashcards', sampleCard(w));
    const id = (await api('POST', '/api/flashcards', sampleCard('four'))).body.data.id;
    const res = await api('POST', `/api/flashcards/${id}/question`, { questionType: 'multiple_choice' });
    expect(res.body.data.question.options).toHaveLength(4);
    expect(res.body.data.question.options).toContain('four-translation');
    expect(res.body.data.question.correctAnswer).toBe('four-translation');
  });
});

describe('Group B /api/study', () => {
  it('When a test is recorded twice, Then the second is 409 and completed-tests lists it once', async () => {
    const { api } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('study'))).body.data.id;
    const body = { flashcardId: id, testType: 'multiple_choice', isCorrect: true };
    const first = await api('POST', '/api/study/record-test', body);
    expect(first.status).toBe(201);
    const second = await api('POST', '/api/study/record-test', { ...body, isCorrect: false });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ success: false, error: expect.any(String) });
    await api('POST', '/api/study/record-test', { ...body, testType: 'typing' });
    const done = await api('GET', '/api/study/completed-tests');
    expect(done.body.data).toMatchObject({ count: 2, studyDate: clock.now().toISOString().slice(0, 10) });
    expect(done.body.data.tests.map((t: { testType: string }) => t.testType)).toEqual([
      'multiple_choice',
      'typing',
    ]);
  });

  it('When the card is foreign or the body is bad, Then 404 / 400', async () => {
    const { api } = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('mine'))).body.data.id;
    const other = newUser();
    expect(
      (
        await other.api('POST', '/api/study/record-test', {
          flashcardId: id,
          testType: 'typing',
          isCorrect: true,
        })
      ).status,
    ).toBe(404);
    expect(
      (await api('POST', '/api/study/record-test', { flashcardId: id, testType: 'essay', isCorrect: true }))
        .status,
    ).toBe(400);
    expect((await api('GET', '/api/study/completed-tests?studyDate=yesterday')).status).toBe(400);
  });
});
