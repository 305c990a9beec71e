import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// A learner's day through the gateway, with the access token the app got at sign-up: a card set,
// cards imported into it from a CSV file, a learning session with reviews, the set exported, an
// achievement claimed, a Group B card edited,
// its question type chosen and a test recorded, the set removed; word look-ups and an example image
// described, rendered and fetched.
jest.setTimeout(120_000);

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }));
});
afterAll(() => stopAndDrop(stack));

async function learner(): Promise<string> {
  const res = await call('POST', '/api/v1/auth/register', { body: newCredentials('l') });
  expect(res.status).toBe(201);
  return res.body.data.accessToken as string;
}

describe('learning through the gateway', () => {
  it('When a learner makes a set, imports cards into it, studies them in a session and deletes the set, Then every step answers as documented', async () => {
    const token = await learner();
    const created = await call('POST', '/api/flashcard-sets', {
      token,
      body: { name: 'Kitchen', description: 'Things in the kitchen', color: '#33aa77', tags: ['home'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.set).toMatchObject({
      name: 'Kitchen',
      color: '#33aa77',
      tags: ['home'],
      isPublic: false,
      cardCount: 0,
    });
    const setId = created.body.data.set.id as string;

    const renamed = await call('PUT', `/api/flashcard-sets/${setId}`, {
      token,
      body: { name: 'Kitchen words', description: 'Pots and pans' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.set).toMatchObject({
      id: setId,
      name: 'Kitchen words',
      description: 'Pots and pans',
    });

    const csv =
      'word,translation,partOfSpeech,definition\r\nkettle,Wasserkocher,noun,a pot for boiling water\r\nladle,Schöpfkelle,noun,a deep spoon\r\nwhisk,Schneebesen,noun,a tool for beating eggs\r\n';
    const form = new FormData();
    form.append('setId', setId);
    form.append('format', 'csv');
    form.append('duplicateStrategy', 'skip');
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'kitchen.csv');
    const imported = await call('POST', '/api/import/cards', { token, raw: form });
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({
      imported: 3,
      created: 3,
      skipped: 0,
      errors: [],
      totalRows: 3,
    });

    const set = await call('GET', `/api/flashcard-sets/${setId}`, { token });
    expect(set.status).toBe(200);
    expect(set.body.data.set).toMatchObject({ id: setId, name: 'Kitchen words' });
    expect(set.body.data.cards.map((c: { word: string }) => c.word).sort()).toEqual([
      'kettle',
      'ladle',
      'whisk',
    ]);
    expect(set.body.data.stats).toEqual(expect.any(Object));

    const start = await call('POST', '/api/learning/session/start', {
      token,
      body: { mode: 'learn', setId },
    });
    expect(start.status).toBe(201);
    expect(start.body.data).toMatchObject({ sessionId: expect.any(String), mode: 'learn' });
    expect(start.body.data.cards).toHaveLength(3);
    const sessionId = start.body.data.sessionId as string;
    const [first, second] = start.body.data.cards as { id: string }[];

    const good = await call('POST', '/api/learning/review', {
      token,
      body: { cardId: first!.id, rating: 5, responseTime: 1800, mode: 'flip', sessionId },
    });
    expect(good.status).toBe(200);
    expect(good.body.data).toMatchObject({
      cardId: first!.id,
      correct: true,
      achievements: expect.any(Array),
    });
    expect(new Date(good.body.data.nextReviewDate).getTime()).toBeGreaterThan(Date.now());
    const bad = await call('POST', '/api/learning/review', {
      token,
      body: { cardId: second!.id, rating: 1, mode: 'flip', sessionId },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.data).toMatchObject({ cardId: second!.id, correct: false });

    const end = await call('POST', '/api/learning/session/end', { token, body: { sessionId } });
    expect(end.status).toBe(200);
    expect(end.body.data).toMatchObject({ sessionId, cardsStudied: 2, accuracy: 50 });
    expect(end.body.data.xpEarned).toBeGreaterThan(0);

    // the set as a CSV file, for another app
    const exported = await call('GET', `/api/export/cards?format=csv&setId=${setId}`, { token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(String(exported.body).split(/\r?\n/)[0]).toMatch(/word/);
    expect(String(exported.body)).toContain('kettle');

    // the first card learned unlocked an achievement: its XP is claimed once
    let unclaimed: { id: string; xp: number } | undefined;
    await waitFor(async () => {
      const board = await call('GET', '/api/achievements', { token });
      expect(board.status).toBe(200);
      unclaimed = (board.body.data.unlocked as { id: string; xp: number; claimed: boolean }[]).find(
        (a) => !a.claimed,
      );
      expect(unclaimed).toBeDefined();
    });
    const claimed = await call('POST', `/api/achievements/${unclaimed!.id}/claim`, { token });
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({ achievementId: unclaimed!.id, xpEarned: unclaimed!.xp });
    expect((await call('POST', `/api/achievements/${unclaimed!.id}/claim`, { token })).status).toBe(409);

    const removed = await call('DELETE', `/api/flashcard-sets/${setId}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ deletedCount: 3 });
    expect((await call('GET', `/api/flashcard-sets/${setId}`, { token })).status).toBe(404);
    // its cards went with it: the learner has none left
    const cards = await call('GET', '/api/flashcards?page=1', { token });
    expect(cards.status).toBe(200);
    expect(cards.body.data).toMatchObject({ cards: [], pagination: { total: 0 } });
  });

  it('When a learner edits a Group B card, asks for its question type and records a test, Then the card changes and the test is listed as completed', async () => {
    const token = await learner();
    const created = await call('POST', '/api/flashcards', {
      token,
      body: {
        word: 'apple',
        translation: 'Apfel',
        definition: 'a round fruit',
        partOfSpeech: 'noun',
        pronunciation: '/ˈæp.əl/',
        example: 'I eat an apple every day.',
      },
    });
    // Group B answers a created card with 200 (the spec's flashcard controller)
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, data: { word: 'apple', translation: 'Apfel' } });
    const id = created.body.data.id as string;

    const updated = await call('PUT', `/api/flashcards/${id}`, {
      token,
      body: { translation: 'der Apfel', difficultyLevel: 'A1', synonyms: ['pome'] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      id,
      word: 'apple',
      translation: 'der Apfel',
      difficultyLevel: 'A1',
      synonyms: ['pome'],
    });

    const mode = await call('POST', `/api/flashcards/${id}/optimal-review-mode`, {
      token,
      body: { learnerLevel: 'A1' },
    });
    expect(mode.status).toBe(200);
    expect(mode.body.data).toMatchObject({ situation: 'a1_learner', learnerLevel: 'A1', wordLevel: 'A1' });
    expect(mode.body.data.availableTypes).toContain(mode.body.data.questionType);
    expect(mode.body.data.availableTypes).not.toContain('sentence_construction');

    const recorded = await call('POST', '/api/study/record-test', {
      token,
      body: { flashcardId: id, testType: mode.body.data.questionType, isCorrect: true },
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.data).toMatchObject({
      flashcardId: id,
      testType: mode.body.data.questionType,
      isCorrect: true,
      studyDate: new Date().toISOString().slice(0, 10),
    });
    const completed = await call('GET', '/api/study/completed-tests', { token });
    expect(completed.status).toBe(200);
    expect(JSON.stringify(completed.body.data)).toContain(recorded.body.data.id);
  });

  it('When a learner looks a word up and makes an example image for it, Then the look-up counts against the quota and the image is served to a signed-in user', async () => {
    const token = await learner();
    const lookup = await call('POST', '/api/ai/lookup', { token, body: { word: 'Running' } });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({
      word: 'running',
      lemma: 'run',
      partOfSpeech: 'verb',
      quota: { used: 1, limit: 5, remaining: 4 },
    });

    const described = await call('POST', '/api/ai/images/description', {
      token,
      body: { word: 'umbrella', context: 'She opened her umbrella in the rain.' },
    });
    expect(described.status).toBe(200);
    expect(described.body.data.description).toContain('umbrella');
    const created = await call('POST', '/api/ai/images', {
      token,
      body: { description: described.body.data.description },
    });
    expect(created.status).toBe(201);
    const image = created.body.data;
    expect(image).toMatchObject({ url: `/api/ai/images/${image.id}`, contentType: 'image/png', width: 512 });

    // another signed-in user (a friend the card was shared with) loads it, as an image view does
    const file = await call('GET', image.url, { token: await learner() });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const png = file.body as Buffer;
    expect(png.subarray(0, 8)).toEqual(Buffer.from('89504e470d0a1a0a', 'hex'));
    expect(png.readUInt32BE(16)).toBe(512);
  });
});
