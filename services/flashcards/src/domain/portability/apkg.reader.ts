import { OutputBudget, decodeStream, isMalformed, readSqliteImage, unzip } from '@lingua/decompress';
import type { Database } from 'sql.js';
import { htmlToText } from './html-text';
import { MalformedFileError, type RawRow } from './portable-card';
import { sqlJs } from './sql-js';

export interface ApkgReadOptions {
  /** Most bytes the package may expand to (its collections, after unzip and zstd, together). */
  maxCollectionBytes: number;
  /** Notes read at most (the caller refuses a file with more rows than it takes). */
  maxNotes?: number;
}

// Newest first: an anki21b package also carries a stub collection.anki2 that only says "update Anki".
const COLLECTION_FILES = ['collection.anki21b', 'collection.anki21', 'collection.anki2'] as const;

const FIELD_ALIASES: Record<string, string> = {
  word: 'word',
  front: 'word',
  term: 'word',
  expression: 'word',
  translation: 'translation',
  back: 'translation',
  meaning: 'translation',
  partofspeech: 'partOfSpeech',
  pronunciation: 'pronunciation',
  reading: 'pronunciation',
  definition: 'definition',
  examplesentence: 'exampleSentence',
  example: 'exampleSentence',
  exampletranslation: 'exampleTranslation',
  synonyms: 'synonyms',
  difficulty: 'difficulty',
};

/**
 * Reads the notes of an Anki package: legacy `collection.anki2` / `collection.anki21` (schema 11,
 * note types as JSON in `col.models`) and `collection.anki21b` (zstd-compressed, schema 18, note
 * types in the `notetypes`/`fields` tables). Fields map by name (Word/Front, Translation/Back…);
 * otherwise the first two fields are word and translation. 413 when the package expands past
 * maxCollectionBytes; MalformedFileError for anything that is not an Anki package.
 */
export async function readApkg(
  file: Uint8Array | AsyncIterable<Uint8Array>,
  options: ApkgReadOptions,
): Promise<RawRow[]> {
  const collection = await extractCollection(
    file instanceof Uint8Array ? [file] : file,
    options.maxCollectionBytes,
  );
  const SQL = await sqlJs();
  let db: Database;
  try {
    db = new SQL.Database(collection);
  } catch {
    throw new MalformedFileError('The Anki package does not hold a readable collection');
  }
  try {
    refuseComputedTables(db);
    const fieldNames = noteTypeFields(db);
    const notes = query(db, 'SELECT mid, tags, flds FROM notes ORDER BY id', options.maxNotes);
    return notes.map(([mid, tags, flds], index) => ({
      row: index + 1,
      data: noteToCard(
        String(flds ?? '').split('\x1f'),
        fieldNames.get(String(mid)) ?? [],
        String(tags ?? ''),
      ),
    }));
  } finally {
    db.close();
  }
}

/**
 * The collection file of the package, unzipped while the package arrives and (anki21b) zstd-decoded,
 * all through @lingua/decompress: every byte the package expands to, in any entry or frame, counts
 * against one budget, checked as it is decoded (413 past it), and each collection's SQLite header is
 * checked as soon as it is decoded (400 if it is not SQLite, 413 if it declares more than the budget).
 * Only the collection entries are decoded and kept, the package itself never is.
 */
async function extractCollection(
  content: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const budget = new OutputBudget(maxBytes, 'The Anki package');
  const files = new Map<string, Buffer>();
  try {
    await unzip(content, {
      select: (name) => (COLLECTION_FILES as readonly string[]).includes(name),
      budget,
      onEntry: async (name, data) => {
        const decoded = name === 'collection.anki21b' ? decodeStream(data, 'zstd', budget) : data;
        files.set(name, await readSqliteImage(decoded, budget));
      },
    });
  } catch (err) {
    // the reader's own words for a broken package; 413 and a client gone pass as they are
    if (isMalformed(err)) throw new MalformedFileError(err.message);
    throw err;
  }
  const data = COLLECTION_FILES.map((n) => files.get(n)).find((f) => f !== undefined);
  if (!data) throw new MalformedFileError('The Anki package holds no collection.anki2, .anki21 or .anki21b');
  return data;
}

/**
 * Tables we read that compute their rows (a view, a virtual table, a generated column) could
 * expand a small file without bound when queried: Anki never writes them, so they are refused
 * before any query runs.
 */
function refuseComputedTables(db: Database): void {
  for (const table of ['col', 'notes', 'fields']) {
    const [entry] = query(db, `SELECT type, sql FROM sqlite_master WHERE lower(name) = '${table}'`);
    if (!entry) continue;
    const [type, sql] = entry;
    const computed =
      type !== 'table' ||
      /^\s*create\s+virtual\b/i.test(String(sql ?? '')) ||
      // table_xinfo: hidden 2 = a generated column computed when read
      query(db, `SELECT hidden FROM pragma_table_xinfo('${table}')`).some(([hidden]) => hidden === 2);
    if (computed) throw new MalformedFileError(`The Anki collection's ${table} is not a plain table`);
  }
}

/** The rows of `sql`, stepped one by one and at most `limit` of them. */
function query(db: Database, sql: string, limit = Infinity): unknown[][] {
  try {
    const statement = db.prepare(sql);
    try {
      const rows: unknown[][] = [];
      while (rows.length < limit && statement.step()) rows.push(statement.get());
      return rows;
    } finally {
      statement.free();
    }
  } catch {
    throw new MalformedFileError('The Anki collection is not a valid Anki database');
  }
}

function noteTypeFields(db: Database): Map<string, string[]> {
  const byModel = new Map<string, string[]>();
  const modelsText = String(query(db, 'SELECT models FROM col')[0]?.[0] ?? '');
  if (modelsText && modelsText !== '{}') {
    try {
      const models = JSON.parse(modelsText) as Record<string, { flds?: { name?: string; ord?: number }[] }>;
      for (const [id, model] of Object.entries(models)) {
        const fields = [...(model.flds ?? [])].sort((a, b) => (a.ord ?? 0) - (b.ord ?? 0));
        byModel.set(
          id,
          fields.map((f) => String(f.name ?? '')),
        );
      }
    } catch {
      throw new MalformedFileError('The note types of the Anki collection are not valid JSON');
    }
    return byModel;
  }
  // schema 18: note types moved into tables
  const hasFieldsTable =
    query(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'fields'").length > 0;
  if (!hasFieldsTable) return byModel;
  for (const [ntid, , name] of query(db, 'SELECT ntid, ord, name FROM fields ORDER BY ntid, ord')) {
    const key = String(ntid);
    byModel.set(key, [...(byModel.get(key) ?? []), String(name ?? '')]);
  }
  return byModel;
}

function noteToCard(values: string[], names: string[], tags: string): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  names.forEach((name, i) => {
    const field = FIELD_ALIASES[name.toLowerCase().replace(/[\s_-]+/g, '')];
    if (field && data[field] === undefined) data[field] = htmlToText(values[i] ?? '');
  });
  // unknown note types (e.g. Anki's "Basic" with custom names): first field = word, second = translation
  if (data.word === undefined) data.word = htmlToText(values[0] ?? '');
  if (data.translation === undefined) data.translation = htmlToText(values[1] ?? '');
  if (typeof data.synonyms === 'string') {
    data.synonyms = data.synonyms
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (data.difficulty === '') delete data.difficulty;
  data.tags = tags.split(/\s+/).filter(Boolean);
  return data;
}
