import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { API_DOCS_PATH } from '@lingua/openapi';
import type { TestClock } from '@lingua/testing';
import { checkAgainstDocument, type Recorded } from '../../../test/e2e/openapi-conformance';
import { newUserClient, type Reply, sampleCard, startFlashcards, stopFlashcards } from './support';

// Group B and Group C share /api/flashcards: one list answer carries both groups' fields, and one
// update accepts any subset of both groups' fields. Every answer here is checked against the
// service's OpenAPI fragment at the end.
let service: RunningService;
let clock: TestClock;
const recorded: Recorded[] = [];

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

function newUser() {
  const { api } = newUserClient(service, clock);
  return async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const reply = await api(method, path, body);
    recorded.push({ method, path, status: reply.status, body: reply.body });
    return reply;
  };
}

describe('/api/flashcards: both faces on one path', () => {
  it('When a plain GET lists the cards, Then the answer has Group B flashcards/count and Group C cards/pagination', async () => {
    const api = newUser();
    const id = (await api('POST', '/api/flashcards', { ...sampleCard('desk'), example: 'A desk.' })).body.data
      .id;
    const res = await api('GET', '/api/flashcards');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        flashcards: [{ id, word: 'desk', example: 'A desk.' }],
        count: 1,
        cards: [{ id, word: 'desk', exampleSentence: 'A desk.', setId: null, tags: [] }],
        pagination: { page: 1, limit: 1000, total: 1, totalPages: 1 },
      },
    });
    // a Group C query is answered in the catalogue envelope, with the Group B fields as well
    const paged = await api('GET', '/api/flashcards?page=1&limit=5');
    expect(paged.body).toMatchObject({
      success: true,
      data: { flashcards: [{ id }], count: 1, cards: [{ id }], pagination: { page: 1, limit: 5, total: 1 } },
      meta: { timestamp: expect.any(String) },
    });
    const empty = await newUser()('GET', '/api/flashcards');
    expect(empty.body.data).toEqual({
      flashcards: [],
      count: 0,
      cards: [],
      pagination: { page: 1, limit: 1000, total: 0, totalPages: 0 },
    });
  });

  it('When PUT sends a partial body, Then only those fields change and the answer has both faces', async () => {
    const api = newUser();
    const created = await api('POST', '/api/flashcards', sampleCard('table', { partOfSpeech: 'noun' }));
    const id = created.body.data.id;
    const res = await api('PUT', `/api/flashcards/${id}`, { translation: 'desk' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        id,
        word: 'table',
        translation: 'desk',
        partOfSpeech: 'noun',
        definition: 'definition of table',
        card: { id, word: 'table', translation: 'desk' },
      },
    });
    // Group B names and Group C names of the same field, one at a time
    expect((await api('PUT', `/api/flashcards/${id}`, { example: 'On the table.' })).body.data).toMatchObject(
      {
        example: 'On the table.',
        card: { exampleSentence: 'On the table.' },
      },
    );
    const groupC = await api('PUT', `/api/flashcards/${id}`, {
      exampleSentence: 'Under it.',
      tags: ['home'],
    });
    expect(groupC.status).toBe(200);
    expect(groupC.body).toMatchObject({
      data: { example: 'Under it.', card: { exampleSentence: 'Under it.', tags: ['home'] } },
      meta: { timestamp: expect.any(String) },
    });
    expect((await api('GET', `/api/flashcards/${id}`)).body.data).toMatchObject({
      word: 'table',
      translation: 'desk',
      example: 'Under it.',
    });
  });

  it('When PUT sends a bad present field, an empty body or both example names, Then 400 naming the field', async () => {
    const api = newUser();
    const id = (await api('POST', '/api/flashcards', sampleCard('chair'))).body.data.id;
    const blank = await api('PUT', `/api/flashcards/${id}`, { translation: '' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ success: false, error: expect.stringContaining('translation') });
    expect((await api('PUT', `/api/flashcards/${id}`, {})).status).toBe(400);
    expect((await api('PUT', `/api/flashcards/${id}`, { masteryLevel: 101 })).status).toBe(400);
    expect((await api('PUT', `/api/flashcards/${id}`, { colour: 'red' })).status).toBe(400);
    const both = await api('PUT', `/api/flashcards/${id}`, { example: 'a', exampleSentence: 'b' });
    expect(both.status).toBe(400);
    // a Group C body gets the Group C error envelope
    const badTags = await api('PUT', `/api/flashcards/${id}`, { tags: 'x' });
    expect(badTags.status).toBe(400);
    expect(badTags.body).toMatchObject({ success: false, error: { code: 'VAL001' } });
    expect((await api('PUT', `/api/flashcards/${randomUUID()}`, { translation: 'x' })).status).toBe(404);
  });

  it('When PUT changes the word to one the user already has, Then 409', async () => {
    const api = newUser();
    await api('POST', '/api/flashcards', sampleCard('lamp'));
    const id = (await api('POST', '/api/flashcards', sampleCard('bulb'))).body.data.id;
    expect((await api('PUT', `/api/flashcards/${id}`, { word: 'Lamp' })).status).toBe(409);
    expect((await api('PUT', `/api/flashcards/${id}`, { word: 'light' })).status).toBe(200);
  });

  it('When the answers above are checked against the service’s OpenAPI fragment, Then each one conforms', async () => {
    const doc = await (await fetch(`${service.httpUrl}${API_DOCS_PATH}`)).json();
    const { failures, checked } = checkAgainstDocument(doc, recorded);
    expect(failures).toEqual([]);
    expect(checked.length).toBe(recorded.length);
  });
});
