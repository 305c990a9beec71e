import { createHash, randomBytes } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import {
  ANKI_SCHEMA_11,
  DCONF_JSON,
  LINGUA_MODEL_FIELDS,
  LINGUA_MODEL_ID,
  confJson,
  decksJson,
  modelsJson,
} from './anki-schema';
import { htmlToText, textToHtml } from './html-text';
import type { PortableCard } from './portable-card';
import { sqlJs } from './sql-js';

export interface ApkgNote {
  card: PortableCard;
  /** Stable id of the source card: the note's guid derives from it, so Anki updates rather than duplicates on re-import. */
  sourceId?: string;
}

export interface ApkgOptions {
  deckName: string;
  deckDescription?: string;
  now: Date;
}

// Anki's base91 alphabet for note guids
const BASE91 = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~';

function base91(bytes: Buffer): string {
  let n = bytes.readBigUInt64BE(0);
  let out = '';
  while (n > 0n) {
    out = BASE91[Number(n % 91n)] + out;
    n /= 91n;
  }
  return out || 'a';
}

export function noteGuid(sourceId?: string): string {
  return base91(sourceId ? createHash('sha1').update(`lingua:${sourceId}`).digest() : randomBytes(8));
}

/** First 8 hex digits of the SHA-1 of the stripped first field, as an integer (Anki's duplicate check). */
export function fieldChecksum(firstField: string): number {
  return parseInt(createHash('sha1').update(htmlToText(firstField)).digest('hex').slice(0, 8), 16);
}

function noteFields(card: PortableCard): string[] {
  const values: Record<(typeof LINGUA_MODEL_FIELDS)[number], string> = {
    Word: card.word,
    Translation: card.translation,
    PartOfSpeech: card.partOfSpeech ?? '',
    Pronunciation: card.pronunciation ?? '',
    Definition: card.definition ?? '',
    ExampleSentence: card.exampleSentence ?? '',
    ExampleTranslation: card.exampleTranslation ?? '',
    Synonyms: card.synonyms.join(', '),
    Difficulty: card.difficulty ?? '',
  };
  return LINGUA_MODEL_FIELDS.map((name) => textToHtml(values[name]));
}

/** Anki tags hold no spaces and are stored space-padded: " a b ". */
function noteTags(tags: readonly string[]): string {
  const cleaned = tags.map((t) => t.trim().replace(/\s+/g, '_')).filter(Boolean);
  return cleaned.length ? ` ${cleaned.join(' ')} ` : '';
}

/**
 * Writes a real Anki package: a zip holding `collection.anki2` (SQLite, collection schema 11),
 * the `media` map (empty) and no media files. One note and one new card per Lingua card, in one deck.
 */
export async function writeApkg(notes: readonly ApkgNote[], options: ApkgOptions): Promise<Uint8Array> {
  const SQL = await sqlJs();
  const db = new SQL.Database();
  try {
    const nowMs = options.now.getTime();
    const nowSec = Math.floor(nowMs / 1000);
    // Anki ids are epoch milliseconds; the deck id must not be 1 (the Default deck)
    const deckId = nowMs;
    db.run(ANKI_SCHEMA_11);
    db.run('INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)', [
      nowSec,
      nowMs,
      nowMs,
      confJson(deckId),
      modelsJson(deckId, nowSec),
      decksJson(deckId, options.deckName, nowSec, options.deckDescription ?? ''),
      DCONF_JSON,
      // must be "{}", not "" (research §5)
      '{}',
    ]);
    const insertNote = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, ?)');
    const insertCard = db.prepare(
      'INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, ?)',
    );
    try {
      db.run('BEGIN');
      notes.forEach(({ card, sourceId }, index) => {
        const fields = noteFields(card);
        const first = fields[0] ?? '';
        const id = nowMs + index;
        insertNote.run([
          id,
          noteGuid(sourceId),
          LINGUA_MODEL_ID,
          nowSec,
          noteTags(card.tags),
          fields.join('\x1f'),
          htmlToText(first),
          fieldChecksum(first),
          '',
        ]);
        // a new card: type 0, queue 0, due = its position among new cards
        insertCard.run([id, id, deckId, nowSec, index + 1, '']);
      });
      db.run('COMMIT');
    } finally {
      insertNote.free();
      insertCard.free();
    }
    const collection = db.export();
    return zipSync({ 'collection.anki2': collection, media: strToU8('{}') }, { level: 6 });
  } finally {
    db.close();
  }
}
