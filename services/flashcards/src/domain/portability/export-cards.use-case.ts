import { AppError } from '@lingua/errors';
import { writeApkg } from './apkg.writer';
import { type ExportableCard, toPortable } from './card-mapping';
import { encodeCsv } from './csv.codec';
import { encodeJson } from './json.codec';
import { PORTABILITY_LIMITS, exportDay } from './portability-limits';

export const EXPORT_FORMATS = ['csv', 'json', 'anki'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportCardsInput {
  userId: string;
  premium: boolean;
  format: ExportFormat;
  setId?: string;
  cardIds?: string[];
}

export interface ExportDeps {
  /** The set's name, or null when the user has no such set. */
  setName(userId: string, setId: string): Promise<string | null>;
  /** The user's active cards, oldest first: the named ones, or those of the set, or all; at most `max`. */
  loadCards(
    userId: string,
    selection: { setId?: string; cardIds?: string[] },
    max: number,
  ): Promise<ExportableCard[]>;
  quota: {
    reserve(
      userId: string,
      day: string,
      limit: number,
      ttlSeconds: number,
    ): Promise<{ allowed: boolean; used: number }>;
    release(userId: string, day: string): Promise<void>;
  };
  now(): Date;
}

export interface ExportFile {
  filename: string;
  contentType: string;
  body: Buffer;
  count: number;
  /** Free users only: the day's export budget after this one. */
  quota?: { limit: number; remaining: number; resetAt: Date };
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  anki: 'application/apkg',
};
const EXTENSIONS: Record<ExportFormat, string> = { csv: 'csv', json: 'json', anki: 'apkg' };

const slug = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .toLowerCase()
    .slice(0, 40) || 'cards';

/**
 * Exports the user's cards as CSV, JSON or an Anki package. Free users get 5 exports per UTC day;
 * a slot is taken only once the request is known to be valid and is given back if the export fails
 * or holds no card.
 */
export async function exportCards(input: ExportCardsInput, deps: ExportDeps): Promise<ExportFile> {
  const now = deps.now();
  let setName: string | undefined;
  if (input.setId) {
    const name = await deps.setName(input.userId, input.setId);
    if (name === null) throw new AppError('NOT_FOUND', 'Set not found');
    setName = name;
  }
  const { day, resetAt } = exportDay(now);
  const limit = PORTABILITY_LIMITS.exportsPerDayFree;
  let used = 0;
  if (!input.premium) {
    // the counter outlives its day by a day, then Redis drops it
    const slot = await deps.quota.reserve(
      input.userId,
      day,
      limit,
      (resetAt.getTime() - now.getTime()) / 1000 + 86_400,
    );
    if (!slot.allowed) {
      const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
      throw new AppError('QUOTA_EXCEEDED', `Free accounts can export ${limit} times per day`, {
        details: { limit, used: slot.used, resetAt: resetAt.toISOString() },
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    used = slot.used;
  }
  try {
    const file = await buildFile(input, deps, now, setName);
    if (input.premium) return file;
    if (file.count === 0) {
      // an empty file exported nothing: the slot goes back (if the counter can be reached now)
      await deps.quota.release(input.userId, day).then(
        () => used--,
        () => undefined,
      );
    }
    return { ...file, quota: { limit, remaining: Math.max(0, limit - used), resetAt } };
  } catch (err) {
    if (!input.premium) await deps.quota.release(input.userId, day).catch(() => undefined);
    throw err;
  }
}

async function buildFile(
  input: ExportCardsInput,
  deps: ExportDeps,
  now: Date,
  setName: string | undefined,
): Promise<ExportFile> {
  const max = PORTABILITY_LIMITS.maxExportCards;
  const stored = await deps.loadCards(
    input.userId,
    { ...(input.setId && { setId: input.setId }), ...(input.cardIds && { cardIds: input.cardIds }) },
    max + 1,
  );
  if (stored.length > max) {
    throw new AppError('INVALID_INPUT', `An export holds at most ${max} cards; export one set at a time`, {
      details: { maxCards: max },
    });
  }
  const cards = stored.map(toPortable);
  const name = setName ?? 'Lingua';
  let body: Buffer;
  if (input.format === 'csv') body = Buffer.from(encodeCsv(cards), 'utf8');
  else if (input.format === 'json')
    body = Buffer.from(encodeJson(cards, { exportedAt: now, ...(setName && { setName }) }), 'utf8');
  else {
    const apkg = await writeApkg(
      stored.map((card, i) => ({ card: cards[i]!, sourceId: card.id })),
      { deckName: name, deckDescription: `Exported from Lingua on ${now.toISOString().slice(0, 10)}`, now },
    );
    body = Buffer.from(apkg.buffer, apkg.byteOffset, apkg.byteLength);
  }
  const date = now.toISOString().slice(0, 10).replace(/-/g, '');
  return {
    filename: `lingua-${slug(setName ?? 'cards')}-${date}.${EXTENSIONS[input.format]}`,
    contentType: CONTENT_TYPES[input.format],
    body,
    count: cards.length,
  };
}
