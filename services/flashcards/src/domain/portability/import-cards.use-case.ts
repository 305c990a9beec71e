import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { type NewCardFields, contentUpdate, newCard } from '../cards/card-fields';
import { readApkg } from './apkg.reader';
import { toCardContent } from './card-mapping';
import { decodeCsv } from './csv.codec';
import { type DuplicateStrategy, duplicateKey, planImport } from './import-plan';
import { decodeJson } from './json.codec';
import { ANKI_INFLATE_FACTOR, PORTABILITY_LIMITS } from './portability-limits';
import { MalformedFileError, type RawRow, type RowError, validateRows } from './portable-card';

export const IMPORT_FORMATS = ['csv', 'json', 'anki'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportCardsInput {
  userId: string;
  file: { bytes: Buffer; name: string };
  /** Omitted: taken from the file name's extension. */
  format?: ImportFormat;
  /** Omitted: the cards are created without a set (Group B cards). */
  setId?: string;
  duplicateStrategy: DuplicateStrategy;
  /** Largest upload this user may send (10 MB free, 50 MB premium). */
  maxBytes: number;
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

async function decode(format: ImportFormat, bytes: Buffer, maxBytes: number): Promise<RawRow[]> {
  if (format === 'anki')
    return readApkg(new Uint8Array(bytes), { maxCollectionBytes: maxBytes * ANKI_INFLATE_FACTOR });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MalformedFileError('The file is not valid UTF-8 text');
  }
  return format === 'csv' ? decodeCsv(text) : decodeJson(text);
}

/**
 * Imports cards from a CSV, JSON or Anki file. The whole file is read and checked before anything
 * is written: a malformed file imports nothing (400). Rows with invalid fields are reported with
 * their row number and left out; the other rows are imported, applying the duplicate strategy.
 */
export async function importCards(input: ImportCardsInput, deps: ImportDeps): Promise<ImportResult> {
  const format = input.format ?? formatFromName(input.file.name);
  if (!format) {
    throw new AppError('VALIDATION_ERROR', 'Validation failed', {
      details: { format: ['Give format (csv, json or anki), or a file name ending in .csv, .json or .apkg'] },
    });
  }
  const setId = input.setId ?? null;
  if (setId && !(await deps.setExists(input.userId, setId))) throw new AppError('NOT_FOUND', 'Set not found');

  let rows: RawRow[];
  try {
    rows = await decode(format, input.file.bytes, input.maxBytes);
  } catch (err) {
    if (err instanceof MalformedFileError) {
      throw new AppError('INVALID_INPUT', `${err.message}; nothing was imported`, { details: { format } });
    }
    throw err;
  }
  if (rows.length > PORTABILITY_LIMITS.maxImportRows) {
    throw new AppError(
      'INVALID_INPUT',
      `A file may hold at most ${PORTABILITY_LIMITS.maxImportRows} cards; nothing was imported`,
      {
        details: { maxRows: PORTABILITY_LIMITS.maxImportRows, rows: rows.length },
      },
    );
  }

  const { cards, errors } = validateRows(rows);
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

  const rowsWithErrors = new Set(errors.map((e) => e.row)).size;
  return {
    imported: create.length + replace.length,
    skipped: plan.skipped.length,
    errors: errors.slice(0, PORTABILITY_LIMITS.maxReportedErrors),
    created: create.length,
    replaced: replace.length,
    totalRows: cards.length + rowsWithErrors,
    errorsTruncated: errors.length > PORTABILITY_LIMITS.maxReportedErrors,
  };
}
