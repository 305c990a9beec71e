import { AppError, type ErrorCode } from '@lingua/errors';

interface MongoServerErrorLike {
  code?: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  message?: string;
}

export function isDuplicateKeyError(err: unknown): err is MongoServerErrorLike {
  return typeof err === 'object' && err !== null && (err as MongoServerErrorLike).code === 11000;
}

/** The fields of the violated unique index: MongoDB gives keyPattern; FerretDB may only give a message. */
function duplicateFields(err: MongoServerErrorLike): string[] {
  if (err.keyPattern) return Object.keys(err.keyPattern);
  if (err.keyValue) return Object.keys(err.keyValue);
  const m = /index:\s*(\S+)/.exec(err.message ?? '');
  return m?.[1] ? m[1].replace(/_-?1/g, ' ').trim().split(/\s+/) : [];
}

/**
 * Maps a unique-index violation to a 409 AppError. `codes` picks a specific code per field
 * (e.g. `{ email: 'EMAIL_EXISTS' }`); other duplicates become CONFLICT. Anything else is rethrown.
 */
export function mapDuplicateKeyError(
  err: unknown,
  codes: Partial<Record<string, ErrorCode>> = {},
  message?: string,
): never {
  if (!isDuplicateKeyError(err)) throw err;
  const fields = duplicateFields(err);
  const mapped = Object.keys(codes);
  // FerretDB names neither the index nor the key; with a single candidate (or candidates that all
  // mean the same code) the answer is still certain.
  const certain = mapped.length === 1 || new Set(mapped.map((f) => codes[f])).size === 1;
  const field = fields.find((f) => codes[f]) ?? fields[0] ?? (certain ? mapped[0] : undefined);
  const code = (field && codes[field]) || 'CONFLICT';
  throw new AppError(code, message ?? `A record with this ${field ?? 'value'} already exists`, {
    details: { fields },
    cause: err,
  });
}
