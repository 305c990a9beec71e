import { Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import { decompress as zstdDecompress } from 'fzstd';
import type { Database } from 'sql.js';
import { htmlToText } from './html-text';
import { MalformedFileError, type RawRow } from './portable-card';
import { sqlJs } from './sql-js';

export interface ApkgReadOptions {
  /** Largest collection (after unzip and zstd) we agree to load into memory. */
  maxCollectionBytes: number;
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
 * otherwise the first two fields are word and translation.
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
    const fieldNames = noteTypeFields(db);
    const notes = query(db, 'SELECT mid, tags, flds FROM notes ORDER BY id');
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
 * The collection file of the package, unzipped while the package arrives (fflate's streaming Unzip):
 * only the collection entries are inflated and kept, the package itself never is. Inflated bytes are
 * counted against `maxBytes` as they come, so a zip bomb stops at the limit whatever its headers say.
 */
async function extractCollection(
  content: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  let failure: unknown;
  let inflated = 0;
  const unzip = new Unzip((entry) => {
    if (!(COLLECTION_FILES as readonly string[]).includes(entry.name)) return;
    if (entry.originalSize !== undefined && entry.originalSize > maxBytes) {
      failure ??= new MalformedFileError('The Anki collection is too large');
      return;
    }
    const parts: Uint8Array[] = [];
    entry.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) {
        failure = err;
        return;
      }
      inflated += chunk.length;
      if (inflated > maxBytes) {
        failure = new MalformedFileError('The Anki collection is too large');
        entry.terminate();
        return;
      }
      parts.push(chunk);
      if (final) files[entry.name] = Buffer.concat(parts);
    };
    try {
      entry.start();
    } catch (err) {
      failure ??= err; // a compression method fflate cannot inflate
    }
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  const fail = (err: unknown): never => {
    if (err instanceof MalformedFileError) throw err;
    throw new MalformedFileError('The file is not a valid Anki package (zip)');
  };
  // errors of the source (a client gone) pass as they are; the unzipper's mean a broken package
  const push = (chunk: Uint8Array, final = false) => {
    try {
      unzip.push(chunk, final);
    } catch (err) {
      fail(err);
    }
    if (failure) fail(failure);
  };
  for await (const chunk of content) push(chunk);
  push(new Uint8Array(0), true);
  const name = COLLECTION_FILES.find((n) => files[n]);
  const data = name ? files[name] : undefined;
  if (!name || !data)
    throw new MalformedFileError('The Anki package holds no collection.anki2, .anki21 or .anki21b');
  if (name !== 'collection.anki21b') return data;
  try {
    const size = zstdFrameContentSize(data);
    if (size !== undefined && size > maxBytes)
      throw new MalformedFileError('The Anki collection is too large');
    return zstdDecompress(data);
  } catch (err) {
    if (err instanceof MalformedFileError) throw err;
    throw new MalformedFileError('The collection.anki21b of the Anki package is not valid zstd data');
  }
}

/** The Frame_Content_Size of a zstd frame header, when present (RFC 8878 §3.1.1.1). */
function zstdFrameContentSize(data: Uint8Array): number | undefined {
  if (data.length < 6 || data[0] !== 0x28 || data[1] !== 0xb5 || data[2] !== 0x2f || data[3] !== 0xfd) {
    throw new MalformedFileError('The collection.anki21b of the Anki package is not valid zstd data');
  }
  const descriptor = data[4] ?? 0;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdFlag = descriptor & 3;
  let offset = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictIdFlag]!;
  const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return undefined;
  let size = 0;
  for (let i = 0; i < fcsBytes; i++) size += (data[offset++] ?? 0) * 2 ** (8 * i);
  return fcsBytes === 2 ? size + 256 : size;
}

function query(db: Database, sql: string): unknown[][] {
  try {
    return db.exec(sql)[0]?.values ?? [];
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
