import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { type NewCardFields, contentUpdate, newCard } from '../cards/card-fields';
import { readApkg } from './apkg.reader';
import { toCardContent } from './card-mapping';
import { decodeCsvStream } from './csv.codec';
import { type DuplicateStrategy, duplicateKey, planImport } from './import-plan';
import { decodeJsonStream } from './json.codec';
import { PORTABILITY_LIMITS, ankiExpansionBudget } from './portability-limits';
import {
  MalformedFileError,
  type PortableCard,
  type RawRow,
  type RowError,
  validateRows,
} from './portable-card';
import { utf8Text } from './utf8-text';

export const IMPORT_FORMATS = ['csv', 'json', 'anki'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ReadImportFileInput {
  /** The uploaded file's name (its extension gives the format when `format` is omitted). */
  name: string;
  format?: ImportFormat | undefined;
  /** The file's bytes as they arrive. */
  content: AsyncIterable<Uint8Array>;
  /** Largest upload this user may send (10 MB free, 50 MB premium). */
  maxBytes: number;
}

/** An import file read and checked row by row: the valid cards and the rows' problems. */
export interface ImportFile {
  format: ImportFormat;
  cards: { row: number; card: PortableCard }[];
  /** The first row problems (at most maxReportedErrors). */
  errors: RowError[];
  errorsTruncated: boolean;
  /** Rows with at least one problem. */
  rowsWithErrors: number;
}

export interface ImportCardsInput {
  userId: string;
  file: ImportFile;
  /** Omitted: the cards are created without a set (Group B cards). */
  setId?: string;
  duplicateStrategy: DuplicateStrategy;
}

export interface ImportDeps {
  setExists(userId: string, setId: string): Promise<boolean>;
  /** Active cards of the user in the set (null: without a set) whose word key is one of `keys`: key → card id. */
  existingByWord(userId: string, setId: string | null, keys: string[]): Promise<Map<string, string>>;
  /**
   * Writes the new cards and the content replacements; if any write fails, undoes the ones done
   * (deletes the created cards, restores the replaced content) and rethrows.
   */
  apply(
    userId: string,
    create: NewCardFields[],
    replace: { cardId: string; set: Record<string, unknown> }[],
  ): Promise<void>;
  now(): Date;
}

export interface ImportResult {
  imported: number;
  skipped: number;
  errors: RowError[];
  created: number;
  replaced: number;
  totalRows: number;
  /** True when more row errors occurred than `errors` lists. */
  errorsTruncated: boolean;
}

export function formatFromName(name: string): ImportFormat | undefined {
  const ext = name.toLowerCase().split('.').pop();
  if (ext === 'csv' || ext === 'tsv' || ext === 'txt') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'apkg' || ext === 'colpkg') return 'anki';
  return undefined;
}

/**
 * The rows of an Anki package: unzipped as it arrives, then the collection opened whole (SQLite);
 * one note more than an import takes is enough to refuse the file.
 */
async function* ankiRows(content: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<RawRow> {
  yield* await readApkg(content, {
    maxCollectionBytes: ankiExpansionBudget(maxBytes),
    maxNotes: PORTABILITY_LIMITS.maxImportRows + 1,
  });
}

function rowsOf(format: ImportFormat, content: AsyncIterable<Uint8Array>, maxBytes: number) {
  if (format === 'anki') return ankiRows(content, maxBytes);
  return format === 'csv' ? decodeCsvStream(utf8Text(content)) : decodeJsonStream(utf8Text(content));
}

/**
 * Reads an import file as it arrives (CSV and JSON row by row; an Anki package unzipped as it
 * arrives, its collection then opened whole, as SQLite needs it): each row is validated at once and
 * only the valid cards and the first problems are kept, so memory follows what will be imported, not
 * the size of the upload. A malformed file, or one with more
 * than maxImportRows rows, is refused as soon as that is known (400), before anything is written; an
 * Anki package that expands past its budget (ankiExpansionBudget), with 413.
 */
export async function readImportFile(input: ReadImportFileInput): Promise<ImportFile> {
  const format = input.format ?? formatFromName(input.name);
  if (!format) {
    throw new AppError('VALIDATION_ERROR', 'Validation failed', {
      details: { format: ['Give format (csv, json or anki), or a file name ending in .csv, .json or .apkg'] },
    });
  }
  const file: ImportFile = { format, cards: [], errors: [], errorsTruncated: false, rowsWithErrors: 0 };
  let rows = 0;
  try {
    for await (const raw of rowsOf(format, input.content, input.maxBytes)) {
      if (++rows > PORTABILITY_LIMITS.maxImportRows) {
        throw new AppError(
          'INVALID_INPUT',
          `A file may hold at most ${PORTABILITY_LIMITS.maxImportRows} cards; nothing was imported`,
          { details: { maxRows: PORTABILITY_LIMITS.maxImportRows } },
        );
      }
      const { cards, errors } = validateRows([raw]);
      file.cards.push(...cards);
      if (errors.length === 0) continue;
      file.rowsWithErrors++;
      const room = PORTABILITY_LIMITS.maxReportedErrors - file.errors.length;
      file.errors.push(...errors.slice(0, Math.max(0, room)));
      if (errors.length > room) file.errorsTruncated = true;
    }
  } catch (err) {
    if (err instanceof MalformedFileError) {
      throw new AppError('INVALID_INPUT', `${err.message}; nothing was imported`, { details: { format } });
    }
    throw err;
  }
  return file;
}

/**
 * Imports the cards of a file read by readImportFile: the whole file was checked before anything is
 * written, so a malformed file imports nothing (400). Rows with invalid fields are reported with
 * their row number and left out; the other rows are imported, applying the duplicate strategy.
 */
export async function importCards(input: ImportCardsInput, deps: ImportDeps): Promise<ImportResult> {
  const setId = input.setId ?? null;
  if (setId && !(await deps.setExists(input.userId, setId))) throw new AppError('NOT_FOUND', 'Set not found');

  const { cards, errors } = input.file;
  const existing =
    input.duplicateStrategy === 'create'
      ? new Map<string, string>()
      : await deps.existingByWord(input.userId, setId, [
          ...new Set(cards.map((c) => duplicateKey(c.card.word))),
        ]);
  const plan = planImport(cards, existing, input.duplicateStrategy);

  const now = deps.now();
  // one millisecond apart, in file order, so "newest first" lists show a stable order
  const create = plan.create.map(({ card }, i) =>
    newCard(
      { ...toCardContent(card), masteryLevel: 0 },
      { id: randomUUID(), userId: input.userId, setId },
      new Date(now.getTime() + i),
    ),
  );
  const replace = plan.replace.map(({ cardId, card }) => ({
    cardId,
    set: { ...contentUpdate(toCardContent(card)), updatedAt: now },
  }));
  await deps.apply(input.userId, create, replace);

  return {
    imported: create.length + replace.length,
    skipped: plan.skipped.length,
    errors,
    created: create.length,
    replaced: replace.length,
    totalRows: cards.length + input.file.rowsWithErrors,
    errorsTruncated: input.file.errorsTruncated,
  };
}
