import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { AppError, parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import { exportCards } from '../../domain/portability/export-cards.use-case';
import {
  IMPORT_FORMATS,
  type ImportFile,
  type ImportFormat,
  importCards,
  readImportFile,
} from '../../domain/portability/import-cards.use-case';
import { PORTABILITY_LIMITS, isPremium } from '../../domain/portability/portability-limits';
import type { FlashcardsDeps } from './deps';
import {
  ExportCardsQuery,
  ImportCardsBody,
  ImportCardsMultipart,
  ImportCardsResponse,
} from './export-import.schemas';

/**
 * The import file is read while it arrives (readImportFile, from multer's file stream): never buffered
 * whole. Its format comes from the `format` field when that was sent before the file, or from the
 * file name; `req.file.imported` carries the checked rows to the route.
 */
function importStorage(maxBytes: number): multer.StorageEngine {
  return {
    _handleFile(req, file, cb) {
      const format = (req.body as { format?: unknown } | undefined)?.format;
      readImportFile({
        name: file.originalname,
        format: (IMPORT_FORMATS as readonly unknown[]).includes(format)
          ? (format as ImportFormat)
          : undefined,
        content: file.stream,
        maxBytes,
      }).then(
        (imported) => cb(null, { imported } as Partial<Express.Multer.File>),
        (err: unknown) => cb(err),
      );
    },
    // nothing is stored before the route runs
    _removeFile: (_req, _file, cb) => cb(null),
  };
}

type ReadFile = Express.Multer.File & { imported: ImportFile };

function uploader(maxBytes: number): RequestHandler {
  const single = multer({
    storage: importStorage(maxBytes),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024, fieldNameSize: 100, parts: 12 },
  }).single('file');
  return (req: Request, res: Response, next: NextFunction) =>
    single(req, res, (err?: unknown) => {
      if (!err) return next();
      if (err instanceof AppError) return next(err);
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') {
          return next(
            new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${maxBytes / (1024 * 1024)} MB`, {
              details: { max_bytes: maxBytes },
            }),
          );
        }
        if (err.code === 'LIMIT_UNEXPECTED_FILE') {
          return next(
            new AppError('VALIDATION_ERROR', 'Validation failed', {
              details: { [err.field ?? 'file']: ['Send exactly one file, in the field "file"'] },
            }),
          );
        }
        return next(new AppError('INVALID_INPUT', `Invalid upload: ${err.message}`));
      }
      // busboy: a broken multipart body is the client's mistake, not ours
      return next(
        new AppError('INVALID_INPUT', `The multipart body is malformed: ${(err as Error).message}`),
      );
    });
}

const claimsOf = (res: Response) =>
  res.locals.user as { role?: string; subscription_status?: string } | undefined;

/** GET /api/export/cards and POST /api/import/cards. */
export function registerExportImportRoutes(app: Express, deps: FlashcardsDeps, docs: ApiDocs): void {
  const store = deps.portability;
  const now = () => deps.clock.now();
  const quota = deps.exportQuota;
  const unavailable = async (): Promise<never> => {
    throw new AppError('SERVICE_UNAVAILABLE', 'Export counters are unavailable');
  };

  const freeUpload = uploader(PORTABILITY_LIMITS.uploadBytesFree);
  const premiumUpload = uploader(PORTABILITY_LIMITS.uploadBytesPremium);
  declareRoutes(app, docs, [
    {
      method: 'get',
      path: '/api/export/cards',
      summary: 'Export cards as CSV, JSON or an Anki package (5 per day for free accounts)',
      tags: ['export-import'],
      auth: 'access',
      query: ExportCardsQuery,
      download: {
        'text/csv': 'CSV with a header row (UTF-8 with BOM)',
        'application/json': 'JSON: {version, exportedAt, set?, count, cards}',
        'application/apkg': 'Anki package (collection.anki2, schema 11)',
      },
      errors: { 404: 'Set not found', 429: 'Daily export limit reached (free accounts)' },
      before: [deps.requireUser],
      handler: async (req, res) => {
        const query = parseInput(ExportCardsQuery, req.query);
        const file = await exportCards(
          {
            userId: deps.userIdOf(res),
            premium: isPremium(claimsOf(res)),
            format: query.format,
            ...(query.setId && { setId: query.setId }),
            ...(query.cardIds && { cardIds: query.cardIds }),
          },
          { ...store, quota: quota ?? { reserve: unavailable, release: unavailable }, now },
        );
        res.setHeader('Content-Type', file.contentType);
        res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('X-Export-Count', String(file.count));
        if (file.quota) {
          res.setHeader('X-Export-Limit', String(file.quota.limit));
          res.setHeader('X-Export-Remaining', String(file.quota.remaining));
          res.setHeader('X-Export-Reset', file.quota.resetAt.toISOString());
        }
        res.status(200).send(file.body);
      },
    },
    {
      method: 'post',
      path: '/api/import/cards',
      summary: 'Import cards from CSV, JSON or an Anki package',
      tags: ['export-import'],
      auth: 'access',
      body: ImportCardsMultipart,
      bodyType: 'multipart/form-data',
      response: ImportCardsResponse,
      errors: {
        400: 'Malformed file (nothing imported) or invalid fields',
        404: 'Set not found',
        413: 'File too large',
      },
      before: [
        deps.requireUser,
        // the size limit is the caller's: the upload is cut off as soon as it passes it
        (req, res, next) => (isPremium(claimsOf(res)) ? premiumUpload : freeUpload)(req, res, next),
      ],
      handler: async (req, res) => {
        const body = parseInput(ImportCardsBody, req.body ?? {});
        const file = req.file as ReadFile | undefined;
        if (!file) {
          throw new AppError('VALIDATION_ERROR', 'Validation failed', {
            details: { file: ['A file is required (multipart/form-data, field "file")'] },
          });
        }
        if (body.format && body.format !== file.imported.format) {
          throw new AppError('VALIDATION_ERROR', 'Validation failed', {
            details: { format: ['Send the format field before the file (the file is read as it arrives)'] },
          });
        }
        const result = await importCards(
          {
            userId: deps.userIdOf(res),
            file: file.imported,
            ...(body.setId && { setId: body.setId }),
            duplicateStrategy: body.duplicateStrategy,
          },
          { ...store, now },
        );
        sendSuccess(res, result, { message: `Imported ${result.imported} cards` });
      },
    },
  ]);
}
