import { createHash } from 'node:crypto';
import { zstdCompressSync } from 'node:zlib';
import { strFromU8, strToU8, unzipSync, Zip, ZipDeflate, zipSync } from 'fflate';
import { readApkg } from '../src/domain/portability/apkg.reader';
import { fieldChecksum, writeApkg } from '../src/domain/portability/apkg.writer';
import { LINGUA_MODEL_FIELDS } from '../src/domain/portability/anki-schema';
import { MalformedFileError, type PortableCard } from '../src/domain/portability/portable-card';
import { sqlJs } from '../src/domain/portability/sql-js';
import { readWithAnkiReader } from './anki-reader';

// anki-reader runs in a child process: slow on a loaded machine
jest.setTimeout(90_000);
const MAX = 50 * 1024 * 1024;
const now = new Date('2026-03-01T10:00:00Z');

const cards: PortableCard[] = [
  {
    word: 'run',
    translation: 'laufen',
    partOfSpeech: 'verb',
    pronunciation: '/rʌn/',
    definition: 'to move fast <on foot> & more',
    exampleSentence: 'I ran home.\nThen I slept.',
    exampleTranslation: 'Ich lief nach Hause.',
    synonyms: ['sprint', 'dash'],
    tags: ['verbs', 'daily life'],
    difficulty: 'beginner',
  },
  { word: 'Straße', translation: 'street', synonyms: [], tags: [] },
];

async function openCollection(apkg: Uint8Array, name = 'collection.anki2') {
  const SQL = await sqlJs();
  const file = unzipSync(apkg)[name];
  if (!file) throw new Error(`no ${name}`);
  return new SQL.Database(file);
}

describe('Anki package export', () => {
  it('When cards are exported, Then the independent anki-reader sees one deck with one note per card, schema 11', async () => {
    const apkg = await writeApkg(
      cards.map((card, i) => ({ card, sourceId: `card-${i}` })),
      { deckName: 'German Basics', deckDescription: 'from Lingua', now },
    );

    const seen = await readWithAnkiReader(apkg);

    expect(seen.version).toBe(11);
    expect(seen.tags).toEqual({});
    const deck = seen.decks.find((d) => d.name === 'German Basics');
    expect(deck?.description).toBe('from Lingua');
    expect(deck?.cards).toHaveLength(2);
    const run = deck?.cards.find((c) => c.front === 'run');
    expect(run?.model).toBe('Lingua Vocabulary');
    expect(run?.fields).toMatchObject({
      Word: 'run',
      Translation: 'laufen',
      PartOfSpeech: 'verb',
      Definition: 'to move fast &lt;on foot&gt; &amp; more',
      ExampleSentence: 'I ran home.<br>Then I slept.',
      Synonyms: 'sprint, dash',
      Difficulty: 'beginner',
    });
    // the template renders a question from the note (anki-reader drops empty questions)
    expect(run?.questions).toBe(1);
    expect(deck?.cards.find((c) => c.front === 'Straße')?.back).toBe('street');
    expect(seen.decks.find((d) => d.name === 'Default')?.cards).toHaveLength(0);
  });

  it('When the package is opened with SQLite, Then the gotchas of research §5 hold (ver, tags, csum, guid, media)', async () => {
    const apkg = await writeApkg([{ card: cards[0]!, sourceId: 'a' }, { card: cards[1]! }], {
      deckName: 'D',
      now,
    });
    const files = unzipSync(apkg);
    expect(Object.keys(files).sort()).toEqual(['collection.anki2', 'media']);
    expect(strFromU8(files.media!)).toBe('{}');

    const db = await openCollection(apkg);
    const [col] = db.exec('SELECT ver, tags, models FROM col')[0]!.values;
    expect(col![0]).toBe(11);
    expect(col![1]).toBe('{}');
    const model = Object.values(
      JSON.parse(String(col![2])) as Record<string, { flds: { name: string }[] }>,
    )[0];
    expect(model?.flds.map((f) => f.name)).toEqual([...LINGUA_MODEL_FIELDS]);
    const notes = db.exec('SELECT guid, flds, sfld, csum FROM notes ORDER BY id')[0]!.values;
    expect(notes).toHaveLength(2);
    expect(String(notes[0]![1]).split('\x1f')).toHaveLength(LINGUA_MODEL_FIELDS.length);
    expect(notes[0]![2]).toBe('run');
    // computed here independently of the writer: first 8 hex digits of sha1("run")
    expect(notes[0]![3]).toBe(parseInt(createHash('sha1').update('run').digest('hex').slice(0, 8), 16));
    expect(fieldChecksum('<b>run</b>')).toBe(notes[0]![3]);
    const tags = db.exec('SELECT tags FROM notes ORDER BY id')[0]!.values.map((r) => r[0]);
    expect(tags).toEqual([' verbs daily_life ', '']);
    expect(String(notes[0]![0])).toMatch(/^[\x21-\x7e]+$/);
    expect(notes[0]![0]).not.toBe(notes[1]![0]);
    const cardsRows = db.exec('SELECT type, queue, due, did FROM cards ORDER BY id')[0]!.values;
    expect(cardsRows.map((r) => r.slice(0, 3))).toEqual([
      [0, 0, 1],
      [0, 0, 2],
    ]);
    db.close();
  });

  it('When the same card is exported twice, Then its note guid is the same (Anki updates instead of duplicating)', async () => {
    const guidOf = async () => {
      const db = await openCollection(
        await writeApkg([{ card: cards[0]!, sourceId: 'stable-id' }], { deckName: 'D', now }),
      );
      const guid = db.exec('SELECT guid FROM notes')[0]!.values[0]![0];
      db.close();
      return guid;
    };
    expect(await guidOf()).toBe(await guidOf());
  });

  it('When no cards are exported, Then the package is still valid and empty', async () => {
    const seen = await readWithAnkiReader(await writeApkg([], { deckName: 'Empty', now }));
    expect(seen.decks.find((d) => d.name === 'Empty')?.cards).toEqual([]);
  });
});

describe('Anki package import', () => {
  it('When our own export is read back, Then every field survives the round trip', async () => {
    const apkg = await writeApkg(
      cards.map((card) => ({ card })),
      { deckName: 'D', now },
    );

    const rows = await readApkg(apkg, { maxCollectionBytes: MAX });

    expect(rows.map((r) => r.row)).toEqual([1, 2]);
    expect(rows[0]!.data).toEqual({ ...cards[0], tags: ['verbs', 'daily_life'] });
    expect(rows[1]!.data).toMatchObject({ word: 'Straße', translation: 'street', synonyms: [], tags: [] });
  });

  it('When the package is named collection.anki21 instead, Then it is read the same way', async () => {
    const files = unzipSync(await writeApkg([{ card: cards[1]! }], { deckName: 'D', now }));
    const apkg = zipSync({ 'collection.anki21': files['collection.anki2']!, media: strToU8('{}') });
    const rows = await readApkg(apkg, { maxCollectionBytes: MAX });
    expect(rows.map((r) => r.data.word)).toEqual(['Straße']);
  });

  it('When a modern anki21b package (zstd, schema 18 note types in tables) is read, Then its Basic notes become cards', async () => {
    const SQL = await sqlJs();
    const db = new SQL.Database();
    db.run(`
      CREATE TABLE col (id integer primary key, crt integer, mod integer, scm integer, ver integer, dty integer,
        usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);
      INSERT INTO col VALUES (1, 0, 0, 0, 18, 0, 0, 0, '', '', '', '', '');
      CREATE TABLE notes (id integer primary key, guid text, mid integer, mod integer, usn integer, tags text,
        flds text, sfld integer, csum integer, flags integer, data text);
      CREATE TABLE notetypes (id integer primary key, name text, mtime_secs integer, usn integer, config blob);
      CREATE TABLE fields (ntid integer, ord integer, name text, config blob, PRIMARY KEY (ntid, ord));
      INSERT INTO notetypes VALUES (77, 'Basic', 0, 0, x'');
      INSERT INTO fields VALUES (77, 1, 'Back', x''), (77, 0, 'Front', x'');
      INSERT INTO notes VALUES (1, 'g1', 77, 0, 0, ' animals ', 'der Hund&nbsp;<b>(m)</b>' || char(31) || 'the dog', 'der Hund', 0, 0, '');
      INSERT INTO notes VALUES (2, 'g2', 77, 0, 0, '', 'die Katze' || char(31) || 'the cat<br>(pet)', 'die Katze', 0, 0, '');
    `);
    const anki21b = zstdCompressSync(db.export());
    db.close();
    // a real anki21b package also carries a stub legacy collection that must be ignored
    const stub = await writeApkg(
      [
        {
          card: {
            word: 'Please update to the latest Anki version',
            translation: 'x',
            synonyms: [],
            tags: [],
          },
        },
      ],
      {
        deckName: 'stub',
        now,
      },
    );
    const apkg = zipSync({
      'collection.anki2': unzipSync(stub)['collection.anki2']!,
      'collection.anki21b': new Uint8Array(anki21b),
      media: strToU8(''),
      meta: new Uint8Array([8, 3]),
    });

    const rows = await readApkg(apkg, { maxCollectionBytes: MAX });

    expect(rows.map((r) => r.data)).toEqual([
      { word: 'der Hund (m)', translation: 'the dog', tags: ['animals'] },
      { word: 'die Katze', translation: 'the cat\n(pet)', tags: [] },
    ]);
  });

  it.each([
    ['not a zip', strToU8('hello, I am not an Anki package')],
    ['a zip without a collection', zipSync({ 'readme.txt': strToU8('hi') })],
    ['a zip whose collection is not SQLite', zipSync({ 'collection.anki2': strToU8('garbage'.repeat(100)) })],
    ['a zip whose anki21b is not zstd', zipSync({ 'collection.anki21b': strToU8('garbage'.repeat(100)) })],
  ])('When the file is %s, Then it is rejected as malformed', async (_name, bytes) => {
    await expect(readApkg(bytes, { maxCollectionBytes: MAX })).rejects.toBeInstanceOf(MalformedFileError);
  });

  it('When a package made by a streaming zipper (sizes only after the data) is too large unzipped, Then inflating stops at the limit', async () => {
    const streamed = (name: string, data: Uint8Array) => {
      const parts: Uint8Array[] = [];
      const zip = new Zip((err, chunk) => {
        if (err) throw err;
        parts.push(chunk);
      });
      const entry = new ZipDeflate(name);
      zip.add(entry);
      entry.push(data, true);
      zip.end();
      return parts;
    };
    async function* arriving(parts: Uint8Array[]) {
      yield* parts;
    }
    // a SQLite header whose page count is not valid: only the budget can stop it
    const header = new Uint8Array(5 * 1024 * 1024);
    header.set(strToU8('SQLite format 3\0'));
    header.set([0x10, 0x00], 16);
    const bomb = streamed('collection.anki2', header);
    await expect(readApkg(arriving(bomb), { maxCollectionBytes: 1024 * 1024 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
    });
    // the same kind of package within the limit is read
    const files = unzipSync(await writeApkg([{ card: cards[1]! }], { deckName: 'D', now }));
    const rows = await readApkg(arriving(streamed('collection.anki2', files['collection.anki2']!)), {
      maxCollectionBytes: MAX,
    });
    expect(rows.map((r) => r.data.word)).toEqual(['Straße']);
  });

  it('When the collection inflates beyond the limit (zip bomb), Then it is rejected before inflating', async () => {
    const bomb = zipSync({ 'collection.anki2': new Uint8Array(5 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(100_000);
    await expect(readApkg(bomb, { maxCollectionBytes: 1024 * 1024 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
    });
  });
});
