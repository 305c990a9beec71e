import { decodeCsv, decodeCsvStream, encodeCsv } from '../src/domain/portability/csv.codec';
import {
  decodeJson,
  decodeJsonStream,
  encodeJson,
  MAX_JSON_ROW_CHARS,
} from '../src/domain/portability/json.codec';
import { planImport } from '../src/domain/portability/import-plan';
import {
  MalformedFileError,
  type PortableCard,
  type RawRow,
  validateRows,
} from '../src/domain/portability/portable-card';
import { utf8Text } from '../src/domain/portability/utf8-text';

const card = (word: string, extra: Partial<PortableCard> = {}): PortableCard => ({
  word,
  translation: `${word}-t`,
  synonyms: [],
  tags: [],
  ...extra,
});

const tricky: PortableCard[] = [
  card('say "hi", then leave', {
    translation: 'sag „hallo“;\nthen go',
    definition: 'line1\r\nline2',
    synonyms: ['greet', 'hail'],
    tags: ['phrases', 'a b'],
    difficulty: 'beginner',
    level: 'A2',
  }),
  card('=SUM(A1:A2)', { translation: '+cmd', exampleSentence: '@import', pronunciation: '-ing' }),
  card('日本語', { translation: 'Japanese 🇯🇵', partOfSpeech: 'noun' }),
];

describe('CSV codec', () => {
  it('When cards with quotes, commas, newlines, unicode and list fields are encoded and decoded, Then they come back equal', () => {
    const csv = encodeCsv(tricky);
    const { cards, errors } = validateRows(decodeCsv(csv));
    expect(errors).toEqual([]);
    expect(cards.map((c) => c.card)).toEqual(tricky);
  });

  it('When a cell starts with a formula character, Then the export neutralises it with an apostrophe', () => {
    const csv = encodeCsv([tricky[1]!]);
    expect(csv).toContain("'=SUM(A1:A2)");
    expect(csv).toContain("'+cmd");
    expect(csv).toContain("'@import");
    expect(csv.startsWith('\uFEFFword,translation,')).toBe(true);
  });

  it('When a spreadsheet CSV uses front/back headers and semicolons, Then its rows are read with record numbers (header = 1)', () => {
    const rows = decodeCsv('Front;Back;Tags\nHund;dog;"animals;pets"\n\nKatze;cat;\n');
    expect(rows).toEqual([
      { row: 2, data: { word: 'Hund', translation: 'dog', tags: ['animals', 'pets'] } },
      { row: 3, data: { word: 'Katze', translation: 'cat', tags: [] } },
    ]);
  });

  it.each([
    ['empty', ''],
    ['without word/translation columns', 'foo,bar\n1,2\n'],
    ['with an unclosed quote', 'word,translation\n"dog,Hund\n'],
    ['with a row of the wrong width', 'word,translation\ndog,Hund,extra\n'],
  ])('When the CSV is %s, Then it is malformed', (_n, text) => {
    expect(() => decodeCsv(text)).toThrow(MalformedFileError);
  });
});

describe('JSON codec', () => {
  it('When cards are encoded and decoded, Then they come back equal, with a versioned header', () => {
    const json = encodeJson(tricky, { exportedAt: new Date('2026-01-02T00:00:00Z'), setName: 'S' });
    expect(JSON.parse(json)).toMatchObject({
      version: 1,
      exportedAt: '2026-01-02T00:00:00.000Z',
      set: { name: 'S' },
      count: 3,
    });
    const { cards, errors } = validateRows(decodeJson(json));
    expect(errors).toEqual([]);
    expect(cards.map((c) => c.card)).toEqual(tricky);
  });

  it('When the JSON is a bare array, Then every element is a row', () => {
    expect(decodeJson('[{"word":"a","translation":"b"}, 5]')).toEqual([
      { row: 1, data: { word: 'a', translation: 'b' } },
      { row: 2, data: { value: 5 } },
    ]);
  });

  it.each([
    ['not JSON', '{"cards": ['],
    ['an object without cards', '{"word":"a"}'],
    ['a string', '"cards"'],
  ])('When the JSON is %s, Then it is malformed', (_n, text) => {
    expect(() => decodeJson(text)).toThrow(MalformedFileError);
  });
});

describe('Row validation', () => {
  it('When rows have missing, too long, wrongly typed or operator-like fields, Then each is reported with its row and field', () => {
    const { cards, errors } = validateRows([
      {
        row: 1,
        data: { word: 'ok', translation: 'fine', _id: 'x', userId: 'someone-else', masteryLevel: 100 },
      },
      { row: 2, data: { word: '', translation: 'x' } },
      { row: 3, data: { word: 'a'.repeat(256), translation: 'x' } },
      { row: 4, data: { word: { $gt: '' }, translation: 'x' } },
      { row: 5, data: { word: 'w', translation: 'x', difficulty: 'expert', level: 'Z9' } },
      { row: 6, data: { word: 'w', translation: 'x', tags: 'not-a-list' } },
    ]);
    // unknown fields (ids, owner, scheduling state) are dropped, not imported
    expect(cards).toEqual([{ row: 1, card: { word: 'ok', translation: 'fine', synonyms: [], tags: [] } }]);
    expect(errors.map((e) => [e.row, e.field])).toEqual([
      [2, 'word'],
      [3, 'word'],
      [4, 'word'],
      [5, 'difficulty'],
      [5, 'level'],
      [6, 'tags'],
    ]);
  });
});

describe('Import plan (duplicate strategies)', () => {
  const rows = [
    { row: 1, card: card('Dog') },
    { row: 2, card: card('cat') },
    { row: 3, card: card('DOG', { translation: 'Hund (new)' }) },
  ];
  const existing = new Map([['cat', 'card-cat']]);

  it('When the strategy is skip, Then existing words and repeats in the file are skipped, the first row winning', () => {
    const plan = planImport(rows, existing, 'skip');
    expect(plan.create.map((c) => c.row)).toEqual([1]);
    expect(plan.replace).toEqual([]);
    expect(plan.skipped).toEqual([
      { row: 2, reason: 'duplicate of an existing card' },
      { row: 3, reason: 'duplicate of an earlier row' },
    ]);
  });

  it('When the strategy is replace, Then existing cards get the row content and the last repeat in the file wins', () => {
    const plan = planImport(
      [...rows, { row: 4, card: card('CAT', { translation: 'Katze' }) }],
      existing,
      'replace',
    );
    expect(plan.create.map((c) => [c.row, c.card.translation])).toEqual([[3, 'Hund (new)']]);
    expect(plan.replace.map((r) => [r.row, r.cardId, r.card.translation])).toEqual([
      [4, 'card-cat', 'Katze'],
    ]);
    expect(plan.skipped.map((s) => s.row).sort()).toEqual([1, 2]);
  });

  it('When the strategy is create, Then every row becomes a new card', () => {
    const plan = planImport(rows, existing, 'create');
    expect(plan.create).toHaveLength(3);
    expect(plan.skipped).toEqual([]);
  });
});

describe('Streaming decoders (text arriving in pieces)', () => {
  const collect = async (rows: AsyncIterable<RawRow>) => {
    const out: RawRow[] = [];
    for await (const row of rows) out.push(row);
    return out;
  };
  // split between characters (code points), as utf8Text yields them
  async function* pieces(text: string, size: number) {
    const chars = Array.from(text);
    for (let i = 0; i < chars.length; i += size) yield chars.slice(i, i + size).join('');
  }
  const json = `\uFEFF{ "version": 1, "set": {"name": "a [b], {c}"}, "count": 3,
    "cards": [ {"word": "q\\"uote]", "translation": "}{", "tags": ["x", "y"]} , 5, "s",
      {"word": "日本語", "translation": "\\u00e9"} ] , "cards_after": [1] }`;

  it('When JSON arrives split at any position, Then the rows are those decodeJson reads from the whole text', async () => {
    const whole = decodeJson(json);
    expect(whole).toHaveLength(4);
    for (const size of [1, 2, 3, 7, 64])
      expect(await collect(decodeJsonStream(pieces(json, size)))).toEqual(whole);
  });

  it.each([
    ['not JSON', '{"cards": ['],
    ['trailing garbage', '[{"word":"a","translation":"b"}] x'],
    ['a broken element', '[{"word":"a",}]'],
    ['two values glued by removed space', '{"cards": [], "v": tru e}'],
    ['an object without cards', '{"word":"a"}'],
    ['cards that are not an array', '{"cards": {"word":"a"}}'],
    ['two cards arrays', '{"cards": [], "cards": []}'],
  ])('When streamed JSON is %s, Then it is malformed', async (_n, text) => {
    await expect(collect(decodeJsonStream(pieces(text, 3)))).rejects.toBeInstanceOf(MalformedFileError);
  });

  it('When one JSON element is larger than a card could be, Then the file is refused without holding it', async () => {
    const huge = `[{"word":"a","translation":"${'x'.repeat(MAX_JSON_ROW_CHARS)}"}]`;
    await expect(collect(decodeJsonStream(pieces(huge, 64 * 1024)))).rejects.toThrow(/larger than/);
  });

  it('When CSV arrives split at any position, Then the rows are those decodeCsv reads from the whole text', async () => {
    const csv = encodeCsv(tricky);
    const whole = decodeCsv(csv);
    for (const size of [1, 5, 13, 4096])
      expect(await collect(decodeCsvStream(pieces(csv, size)))).toEqual(whole);
    await expect(
      collect(decodeCsvStream(pieces('word,translation\nok,1\n"broken,2\n', 4))),
    ).rejects.toBeInstanceOf(MalformedFileError);
    await expect(collect(decodeCsvStream(pieces('  \n', 1)))).rejects.toThrow('empty');
    await expect(collect(decodeCsvStream(pieces('a;b\n1;2\n', 2)))).rejects.toThrow('word and translation');
  });

  it('When bytes are split inside a UTF-8 character, Then it is decoded whole; invalid UTF-8 is malformed', async () => {
    const bytes = Buffer.from('word,translation\nÄpfel,🍎\n');
    async function* oneByteAtATime() {
      for (const b of bytes) yield Uint8Array.of(b);
    }
    expect((await collect(decodeCsvStream(utf8Text(oneByteAtATime()))))[0]!.data).toEqual({
      word: 'Äpfel',
      translation: '🍎',
    });
    async function* invalid() {
      yield Buffer.from([0x77, 0xff, 0xfe]);
    }
    await expect(collect(utf8Text(invalid()) as AsyncIterable<never>)).rejects.toBeInstanceOf(
      MalformedFileError,
    );
  });
});
