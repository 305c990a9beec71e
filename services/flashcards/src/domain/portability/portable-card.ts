import { z } from 'zod';
import { CEFR_LEVELS } from '../cards/cefr';

/**
 * A card as it travels in and out of the service (CSV, JSON, Anki): only the learner's content,
 * never ids, owners or scheduling state, so a file can be imported into any account.
 */
export interface PortableCard {
  word: string;
  translation: string;
  partOfSpeech?: string;
  pronunciation?: string;
  definition?: string;
  exampleSentence?: string;
  exampleTranslation?: string;
  synonyms: string[];
  tags: string[];
  difficulty?: string;
  /** CEFR level of the word (A1…C2). */
  level?: string;
}

/** Column order of CSV files and of the Anki note type's fields. */
export const PORTABLE_FIELDS = [
  'word',
  'translation',
  'partOfSpeech',
  'pronunciation',
  'definition',
  'exampleSentence',
  'exampleTranslation',
  'synonyms',
  'tags',
  'difficulty',
  'level',
] as const;
export type PortableField = (typeof PORTABLE_FIELDS)[number];

export const PORTABLE_LIMITS = {
  word: 255,
  translation: 1000,
  partOfSpeech: 50,
  pronunciation: 255,
  text: 2000,
  listItems: 50,
  listItem: 100,
} as const;

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v === '' ? undefined : v));

const list = z
  .array(z.string().trim().min(1).max(PORTABLE_LIMITS.listItem))
  .max(PORTABLE_LIMITS.listItems)
  .default([]);

/** Validates one imported row; the limits are the card model's, so an accepted row always saves. */
export const PortableCardSchema = z
  .object({
    word: z.string().trim().min(1).max(PORTABLE_LIMITS.word),
    translation: z.string().trim().min(1).max(PORTABLE_LIMITS.translation),
    partOfSpeech: optionalText(PORTABLE_LIMITS.partOfSpeech),
    pronunciation: optionalText(PORTABLE_LIMITS.pronunciation),
    definition: optionalText(PORTABLE_LIMITS.text),
    exampleSentence: optionalText(PORTABLE_LIMITS.text),
    exampleTranslation: optionalText(PORTABLE_LIMITS.text),
    synonyms: list,
    tags: list,
    difficulty: z
      .enum(['beginner', 'intermediate', 'advanced'])
      .optional()
      .or(z.literal('').transform(() => undefined)),
    level: z
      .preprocess(
        (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
        z.enum(CEFR_LEVELS).or(z.literal('')),
      )
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
  })
  // unknown keys (ids, scheduling state of another account) are dropped, not an error
  .strip();

/** A row of an import file before validation, with its position for error reports. */
export interface RawRow {
  /** 1-based: the CSV line, the JSON array index + 1, or the Anki note's position. */
  row: number;
  data: Record<string, unknown>;
}

/** A per-row problem, reported back to the client without stopping the import. */
export interface RowError {
  row: number;
  field?: string;
  message: string;
}

/** The whole file cannot be read: nothing of it is imported. */
export class MalformedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedFileError';
  }
}

/** Validates raw rows into cards, collecting per-row errors (a row with an error is not imported). */
export function validateRows(rows: RawRow[]): {
  cards: { row: number; card: PortableCard }[];
  errors: RowError[];
} {
  const cards: { row: number; card: PortableCard }[] = [];
  const errors: RowError[] = [];
  for (const { row, data } of rows) {
    const parsed = PortableCardSchema.safeParse(data);
    if (parsed.success) {
      cards.push({ row, card: dropUndefined(parsed.data) as PortableCard });
      continue;
    }
    for (const issue of parsed.error.issues) {
      errors.push({ row, field: issue.path.map(String).join('.') || undefined, message: issue.message });
    }
  }
  return { cards, errors };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
