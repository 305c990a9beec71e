import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import type { TestClock } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { cardRepository } from '../src/data-access/card-read-models';
import { setRepository } from '../src/data-access/set.repository';
import { newCard } from '../src/domain/cards/card-fields';
import { flashcardsDeps } from '../src/start';
import { readWithAnkiReader } from './anki-reader';
import { DAY, startFlashcards, stopFlashcards, tokenFor } from './support';

// the machine is shared and often loaded: generous per-test time, no timing assertions
jest.setTimeout(120_000);
let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards({}, '2026-04-01T10:00:00Z'));
}, 60_000);
afterAll(async () => {
  await stopFlashcards(service);
});

const conn = () => service.deps.mongo.connection;

async function seedSet(userId: string, name: string) {
  const id = randomUUID();
  const now = clock.now();
  await setRepository(conn()).insert({
    id,
    userId,
    name,
    description: '',
    color: null,
    tags: [],
    isPublic: false,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

async function seedCards(
  userId: string,
  setId: string | null,
  words: string[],
  extra: Record<string, unknown> = {},
) {
  const cards = words.map((word, i) =>
    newCard(
      {
        word,
        translation: `${word}-t`,
        definition: `def ${word}`,
        synonyms: [`${word}-syn`],
        tags: ['seed'],
        ...extra,
      },
      { id: randomUUID(), userId, setId },
      // before anything a test then imports (imports are stamped at the clock's now)
      new Date(clock.now().getTime() - 60_000 + i),
    ),
  );
  await cardRepository(conn()).insertMany(cards);
  return cards.map((c) => c.id);
}

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function download(query: string, auth: Record<string, string>): Promise<Download> {
  const res = await fetch(`${service.httpUrl}/api/export/cards${query}`, { headers: auth });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, json };
}

async function upload(
  auth: Record<string, string>,
  file: { content: string | Uint8Array; name: string } | undefined,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.content as BlobPart]), file.name);
  const res = await fetch(`${service.httpUrl}/api/import/cards`, {
    method: 'POST',
    headers: auth,
    body: form,
  });
  const text = await res.text();
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

const activeCards = (userId: string) =>
  cardModel(conn()).find({ userId, isArchived: false }).sort({ createdAt: 1, _id: 1 }).lean();

describe('GET /api/export/cards', () => {
  it('When a user exports as JSON, Then the file holds their active cards only, with download headers and the quota left', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedCards(sub, null, ['alpha', 'beta']);
    const [archived] = await seedCards(sub, null, ['gamma']);
    await cardModel(conn()).updateOne({ _id: archived }, { $set: { isArchived: true } });
    const other = tokenFor(service, clock);
    await seedCards(other.sub, null, ['not-mine']);

    const res = await download('?format=json', auth);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="lingua-cards-20260401.json"');
    expect(res.headers.get('x-export-limit')).toBe('5');
    expect(res.headers.get('x-export-remaining')).toBe('4');
    expect(res.json).toMatchObject({ version: 1, count: 2 });
    expect(res.json.cards).toEqual([
      {
        word: 'alpha',
        translation: 'alpha-t',
        definition: 'def alpha',
        synonyms: ['alpha-syn'],
        tags: ['seed'],
      },
      { word: 'beta', translation: 'beta-t', definition: 'def beta', synonyms: ['beta-syn'], tags: ['seed'] },
    ]);
  });

  it('When a set is exported as CSV, Then only its cards are in the file, named after the set', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const setId = await seedSet(sub, 'Spanish Verbs');
    await seedCards(sub, setId, ['hablar', 'comer']);
    await seedCards(sub, null, ['outside']);

    const res = await download(`?format=csv&setId=${setId}`, auth);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toContain('lingua-spanish-verbs-20260401.csv');
    const lines = res.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      'word,translation,partOfSpeech,pronunciation,definition,exampleSentence,exampleTranslation,synonyms,tags,difficulty,level',
    );
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['hablar', 'comer']);
  });

  it('When chosen cards are exported as Anki, Then anki-reader reads a deck named after the set with exactly those cards', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const setId = await seedSet(sub, 'Animals');
    const [dog, , bird] = await seedCards(sub, setId, ['dog', 'cat', 'bird']);

    const res = await download(`?format=anki&setId=${setId}&cardIds=${dog},${bird}`, auth);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/apkg');
    expect(res.headers.get('content-disposition')).toContain('.apkg');
    const seen = await readWithAnkiReader(res.bytes);
    expect(seen.version).toBe(11);
    const deck = seen.decks.find((d) => d.name === 'Animals');
    expect(deck?.cards.map((c) => c.fields.Word).sort()).toEqual(['bird', 'dog']);
    expect(deck?.cards.find((c) => c.fields.Word === 'dog')?.fields).toMatchObject({
      Translation: 'dog-t',
      Definition: 'def dog',
    });
  });

  it("When another user's set or cards are named, Then the set is 404 and their cards never appear", async () => {
    const owner = tokenFor(service, clock);
    const setId = await seedSet(owner.sub, 'Private');
    const [cardId] = await seedCards(owner.sub, setId, ['secret']);
    const { auth } = tokenFor(service, clock);

    const bySet = await download(`?format=json&setId=${setId}`, auth);
    expect(bySet.status).toBe(404);
    expect(bySet.json).toMatchObject({ success: false, error: { code: 'RES001' } });

    const byIds = await download(`?format=json&cardIds=${cardId}`, auth);
    expect(byIds.status).toBe(200);
    expect(byIds.json.cards).toEqual([]);
    expect(byIds.text).not.toContain('secret');
  });

  it.each([
    ['an unknown format', '?format=xml'],
    ['an operator as setId', '?format=json&setId[$gt]='],
    ['an unknown parameter', '?format=json&userId=someone'],
    [
      'a huge cardIds list',
      `?format=json&cardIds=${Array.from({ length: 1001 }, (_, i) => `id${i}`).join(',')}`,
    ],
    ['a cardId with odd characters', '?format=json&cardIds=%7B%22%24ne%22%3A1%7D'],
  ])('When the query has %s, Then 400 VAL001 and no export is counted', async (_name, query) => {
    const { sub, auth } = tokenFor(service, clock);
    await seedCards(sub, null, ['apple']); // an export of no card is not counted either
    const res = await download(query, auth);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, error: { code: 'VAL001' } });
    expect((await download('?format=json', auth)).headers.get('x-export-remaining')).toBe('4');
  });

  it('When a free user exports a collection with no card, Then the file comes and no export is counted', async () => {
    const { auth } = tokenFor(service, clock);
    const empty = await download('?format=csv', auth);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('x-export-remaining')).toBe('5');
  });

  it('When there is no token, Then 401', async () => {
    const res = await download('?format=json', {});
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ success: false, error: { code: 'AUTH003' } });
  });

  it('When a free user exports a sixth time in one UTC day, Then 429 RATE002 with Retry-After, and the next day works again', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedCards(sub, null, ['apple']);
    for (let i = 0; i < 5; i++) {
      const ok = await download('?format=csv', auth);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-export-remaining')).toBe(String(4 - i));
    }
    const refused = await download('?format=csv', auth);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      success: false,
      error: { code: 'RATE002', details: { limit: 5, resetAt: '2026-04-02T00:00:00.000Z' } },
    });
    // 10:00 UTC → midnight is 14 h away
    expect(Number(refused.headers.get('retry-after'))).toBe(14 * 3600);

    clock.advance(DAY);
    try {
      const tomorrow = await download('?format=csv', tokenForSameUser(auth));
      expect(tomorrow.status).toBe(200);
      expect(tomorrow.headers.get('x-export-remaining')).toBe('4');
    } finally {
      clock.advance(-DAY);
    }
  });

  it('When an export fails (unknown set), Then it does not use up a free export', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedCards(sub, null, ['apple']);
    expect((await download(`?format=json&setId=${randomUUID()}`, auth)).status).toBe(404);
    expect((await download('?format=json', auth)).headers.get('x-export-remaining')).toBe('4');
  });

  it.each([
    ['a subscriber', { role: 'subscriber' as const }],
    ['an admin', { role: 'admin' as const }],
    ['a user on a trial', { subscription_status: 'trial' as const }],
  ])(
    'When %s exports more than 5 times, Then every export succeeds without a quota header',
    async (_n, claims) => {
      const { auth } = tokenFor(service, clock, claims);
      for (let i = 0; i < 7; i++) {
        const res = await download('?format=json', auth);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-export-remaining')).toBeNull();
      }
    },
  );
});

/** A fresh token (valid at the moved clock) for the user of `auth`. */
function tokenForSameUser(auth: Record<string, string>) {
  const claims = JSON.parse(Buffer.from(auth.authorization!.split('.')[1]!, 'base64url').toString()) as {
    sub: string;
  };
  return tokenFor(service, clock, { sub: claims.sub }).auth;
}

describe('POST /api/import/cards', () => {
  it('When a CSV is imported into a set with skip, Then new words are created, duplicates skipped and bad rows reported', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const setId = await seedSet(sub, 'Imports');
    await seedCards(sub, setId, ['Haus']);
    const csv = [
      'word,translation,tags,difficulty',
      'haus,house (dup of existing),,',
      'Baum,tree,"nature;plants",beginner',
      ',missing word,,',
      'Baum,tree again,,',
      'Blume,flower,,expert',
      'Wasser,water,,',
    ].join('\n');

    const res = await upload(auth, { content: csv, name: 'words.csv' }, { setId, duplicateStrategy: 'skip' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: { imported: 2, skipped: 2, created: 2, replaced: 0, totalRows: 6 },
    });
    expect(res.body.data.errors).toEqual([
      { row: 4, field: 'word', message: expect.any(String) },
      { row: 6, field: 'difficulty', message: expect.any(String) },
    ]);
    const stored = await activeCards(sub);
    expect(stored.map((c) => [c.word, c.setId])).toEqual([
      ['Haus', setId],
      ['Baum', setId],
      ['Wasser', setId],
    ]);
    expect(stored[1]).toMatchObject({
      translation: 'tree',
      tags: ['nature', 'plants'],
      difficulty: 'beginner',
      timesReviewed: 0,
      userId: sub,
    });
  });

  it('When a CSV is malformed after valid rows, Then 400 VAL002 and nothing of it is imported', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const csv = 'word,translation\nok1,one\nok2,two\n"broken,three\n';
    const res = await upload(auth, { content: csv, name: 'broken.csv' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'VAL002', message: expect.stringContaining('nothing was imported') },
    });
    expect(await activeCards(sub)).toEqual([]);
  });

  it.each([
    ['invalid JSON', '{"cards": [{"word": "a", "translation": "b"}', 'x.json', 'json'],
    ['JSON of another shape', '{"words": []}', 'x.json', 'json'],
    ['a CSV sent as anki', 'word,translation\na,b\n', 'x.apkg', 'anki'],
    ['binary sent as csv', '\u0000\uFFFF', 'x.csv', 'csv'],
  ])('When the file is %s, Then 400 and nothing is imported', async (_n, content, name, format) => {
    const { sub, auth } = tokenFor(service, clock);
    const bytes = _n === 'binary sent as csv' ? new Uint8Array([0xff, 0xfe, 0x00, 0xc3, 0x28]) : content;
    const res = await upload(auth, { content: bytes, name }, { format });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL002');
    expect(await activeCards(sub)).toEqual([]);
  });

  it('When JSON rows have errors, Then each is reported by row and field and the valid rows are imported', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const json = JSON.stringify({
      cards: [
        {
          word: 'uno',
          translation: 'one',
          synonyms: ['un'],
          level: 'a1',
          _id: 'evil',
          userId: 'someone-else',
          masteryLevel: 100,
        },
        { word: { $gt: '' }, translation: 'two' },
        'three',
        { word: 'cuatro', translation: 'x'.repeat(1001) },
        { word: 'cinco', translation: 'five', exampleSentence: 'Tengo cinco gatos.' },
      ],
    });
    const res = await upload(auth, { content: json, name: 'cards.json' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 2, skipped: 0, totalRows: 5 });
    expect(res.body.data.errors.map((e: { row: number; field?: string }) => [e.row, e.field])).toEqual([
      [2, 'word'],
      [3, 'word'],
      [3, 'translation'],
      [4, 'translation'],
    ]);
    const stored = await activeCards(sub);
    expect(stored.map((c) => c.word)).toEqual(['uno', 'cinco']);
    expect(stored[0]).toMatchObject({
      userId: sub,
      setId: null,
      synonyms: '["un"]',
      difficultyLevel: 'A1',
      masteryLevel: 0,
    });
    expect(stored[0]!._id).not.toBe('evil');
    expect(stored[1]).toMatchObject({ example: 'Tengo cinco gatos.' });
  });

  it('When duplicates are imported with replace, Then the existing card takes the new content and keeps its learning progress', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const [id] = await seedCards(sub, null, ['Katze']);
    await cardModel(conn()).updateOne({ _id: id }, { $set: { timesReviewed: 4, masteryLevel: 60 } });
    const json = JSON.stringify([
      { word: 'katze', translation: 'cat (first)' },
      { word: 'KATZE', translation: 'cat', definition: 'a small feline' },
      { word: 'Hund', translation: 'dog' },
    ]);

    const res = await upload(auth, { content: json, name: 'x.json' }, { duplicateStrategy: 'replace' });

    expect(res.body.data).toMatchObject({ imported: 2, replaced: 1, created: 1, skipped: 1 });
    const stored = await activeCards(sub);
    expect(stored.map((c) => c.word)).toEqual(['KATZE', 'Hund']);
    expect(stored[0]).toMatchObject({
      _id: id,
      translation: 'cat',
      definition: 'a small feline',
      timesReviewed: 4,
      masteryLevel: 60,
      wordKey: 'katze',
    });
  });

  it('When duplicates are imported with create, Then every row becomes a card', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedCards(sub, null, ['Maus']);
    const res = await upload(
      auth,
      { content: 'word,translation\nMaus,mouse\nmaus,mouse\n', name: 'x.csv' },
      { duplicateStrategy: 'create' },
    );
    expect(res.body.data).toMatchObject({ imported: 2, skipped: 0 });
    expect((await activeCards(sub)).map((c) => c.word)).toEqual(['Maus', 'Maus', 'maus']);
    expect(res.body.data.created).toBe(2);
  });

  it("When one user's Anki export is imported by another, Then the same cards arrive in the target set", async () => {
    const alice = tokenFor(service, clock, { role: 'subscriber' });
    await seedCards(alice.sub, null, ['sol', 'luna'], {
      pronunciation: '/sol/',
      example: 'El sol <brilla> & calienta',
    });
    const apkg = await download('?format=anki', alice.auth);
    expect(apkg.status).toBe(200);
    const bob = tokenFor(service, clock);
    const setId = await seedSet(bob.sub, 'From Alice');

    const res = await upload(
      bob.auth,
      { content: new Uint8Array(apkg.bytes), name: 'alice.apkg' },
      { setId },
    );

    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 2, errors: [] });
    const stored = await activeCards(bob.sub);
    expect(stored.map((c) => c.word).sort()).toEqual(['luna', 'sol']);
    expect(stored.find((c) => c.word === 'sol')).toMatchObject({
      setId,
      translation: 'sol-t',
      pronunciation: '/sol/',
      example: 'El sol <brilla> & calienta',
      synonyms: '["sol-syn"]',
      tags: ['seed'],
    });
  });

  it('When a free user uploads more than 10 MB, Then 413 and nothing is imported; a premium user may send it', async () => {
    const padded = `{"cards":[{"word":"big","translation":"file"}]${' '.repeat(11 * 1024 * 1024)}}`;
    const free = tokenFor(service, clock);
    const refused = await upload(free.auth, { content: padded, name: 'big.json' });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: 'VAL002', details: { max_bytes: 10 * 1024 * 1024 } },
    });
    expect(await activeCards(free.sub)).toEqual([]);

    const premium = tokenFor(service, clock, { subscription_status: 'active' });
    const accepted = await upload(premium.auth, { content: padded, name: 'big.json' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.imported).toBe(1);
  });

  it.each([
    ['no file', 'VAL001', undefined, {}],
    ['an unknown field', 'VAL001', { content: 'word,translation\na,b', name: 'a.csv' }, { owner: 'x' }],
    [
      'an unknown strategy',
      'VAL001',
      { content: 'word,translation\na,b', name: 'a.csv' },
      { duplicateStrategy: 'merge' },
    ],
    ['no format and an unknown extension', 'VAL001', { content: 'word,translation\na,b', name: 'a.dat' }, {}],
    [
      'an operator-like setId',
      'VAL001',
      { content: 'word,translation\na,b', name: 'a.csv' },
      { setId: '{"$ne":null}' },
    ],
  ])('When the upload has %s, Then 400 %s', async (_n, code, file, fields) => {
    const { sub, auth } = tokenFor(service, clock);
    const res = await upload(auth, file, fields as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(await activeCards(sub)).toEqual([]);
  });

  it('When a file holds more than 10 000 rows, Then it is refused (400) as the row after the limit arrives, nothing imported', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const rows = Array.from({ length: 10_001 }, (_, i) => `w${i},t${i}`);
    const res = await upload(auth, { content: ['word,translation', ...rows].join('\n'), name: 'many.csv' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL002', details: { maxRows: 10_000 } });
    expect(await activeCards(sub)).toEqual([]);
  });

  it('When the format field comes after the file and differs from how it was read, Then 400 (send it first)', async () => {
    const { auth } = tokenFor(service, clock);
    const form = new FormData();
    form.append('file', new Blob(['word,translation\na,b']), 'a.csv');
    form.append('format', 'json');
    const res = await fetch(`${service.httpUrl}/api/import/cards`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: 'VAL001',
      details: { format: [expect.any(String)] },
    });
  });

  it('When the file comes in a field other than "file", Then 400', async () => {
    const { auth } = tokenFor(service, clock);
    const form = new FormData();
    form.append('upload', new Blob(['word,translation\na,b']), 'a.csv');
    const res = await fetch(`${service.httpUrl}/api/import/cards`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    expect(res.status).toBe(400);
  });

  it('When the body is not multipart or is broken multipart, Then 400, never 500', async () => {
    const { auth } = tokenFor(service, clock);
    const json = await fetch(`${service.httpUrl}/api/import/cards`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"file":"word,translation"}',
    });
    expect(json.status).toBe(400);
    const broken = await fetch(`${service.httpUrl}/api/import/cards`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nword,transl',
    });
    expect(broken.status).toBe(400);
  });

  it("When the target set is another user's, Then 404 and nothing is imported", async () => {
    const owner = tokenFor(service, clock);
    const setId = await seedSet(owner.sub, 'Theirs');
    const { sub, auth } = tokenFor(service, clock);
    const res = await upload(auth, { content: 'word,translation\na,b', name: 'a.csv' }, { setId });
    expect(res.status).toBe(404);
    expect(await activeCards(sub)).toEqual([]);
    expect(await cardModel(conn()).countDocuments({ setId })).toBe(0);
  });

  it('When a free user exports a collection with no card, Then the file comes and no export is counted', async () => {
    const { auth } = tokenFor(service, clock);
    const empty = await download('?format=csv', auth);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('x-export-remaining')).toBe('5');
  });

  it('When there is no token, Then 401', async () => {
    const res = await upload({}, { content: 'word,translation\na,b', name: 'a.csv' });
    expect(res.status).toBe(401);
  });
});

describe('Import writes', () => {
  it('When the database refuses a write part-way, Then the cards created so far are removed again and older cards are untouched', async () => {
    const { sub } = tokenFor(service, clock);
    const [existingId] = await seedCards(sub, null, ['Bestand']);
    const store = flashcardsDeps(service.deps, clock).portability;
    const now = clock.now();
    const fresh = ['neu1', 'neu2', 'neu3'].map((word, i) =>
      newCard(
        { word, translation: 't' },
        { id: randomUUID(), userId: sub, setId: null },
        new Date(now.getTime() + i),
      ),
    );
    // the last one collides with an existing id: the insert fails after the others were written
    const colliding = { ...fresh[2]!, id: existingId! };

    await expect(store.apply(sub, [fresh[0]!, fresh[1]!, colliding], [])).rejects.toThrow();

    const stored = await activeCards(sub);
    expect(stored.map((c) => [c._id, c.word])).toEqual([[existingId, 'Bestand']]);
  });
});

describe('API document', () => {
  it('When the service document is fetched, Then it lists the achievements, export and import routes', async () => {
    const res = await fetch(`${service.httpUrl}/internal/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/achievements',
        '/api/achievements/{achievementId}/claim',
        '/api/export/cards',
        '/api/import/cards',
      ]),
    );
  });
});
