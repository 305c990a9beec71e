import { z } from 'zod';
import { EXPORT_FORMATS } from '../../domain/portability/export-cards.use-case';
import { DUPLICATE_STRATEGIES } from '../../domain/portability/import-plan';
import { IMPORT_FORMATS } from '../../domain/portability/import-cards.use-case';
import { PORTABILITY_LIMITS } from '../../domain/portability/portability-limits';

/** Ids are the service's UUIDs or similar tokens: never operators, never huge. */
const id = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id');

/** `cardIds` as a comma-separated list, or the parameter repeated. */
const cardIdList = z
  .union([z.string().max(70_000), z.array(z.string().max(70_000)).max(PORTABILITY_LIMITS.maxExportCardIds)])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(id).min(1).max(PORTABILITY_LIMITS.maxExportCardIds));

export const ExportCardsQuery = z
  .object({
    format: z.enum(EXPORT_FORMATS).default('json'),
    setId: id.optional(),
    cardIds: cardIdList.optional(),
  })
  .strict();

/** The text fields of the multipart import (the file itself is the `file` part). */
export const ImportCardsBody = z
  .object({
    setId: z.preprocess((v) => (v === '' ? undefined : v), id.optional()),
    format: z.preprocess((v) => (v === '' ? undefined : v), z.enum(IMPORT_FORMATS).optional()),
    duplicateStrategy: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(DUPLICATE_STRATEGIES).default('skip'),
    ),
  })
  .strict();

/** For the API document: the multipart body including the file. */
export const ImportCardsMultipart = ImportCardsBody.extend({
  file: z
    .string()
    .meta({ format: 'binary', description: 'CSV, JSON or Anki .apkg (10 MB free, 50 MB premium)' }),
});

export const ImportCardsResponse = z.object({
  imported: z.number().int(),
  skipped: z.number().int(),
  errors: z.array(z.object({ row: z.number().int(), field: z.string().optional(), message: z.string() })),
  created: z.number().int(),
  replaced: z.number().int(),
  totalRows: z.number().int(),
  errorsTruncated: z.boolean(),
});
