import { MalformedFileError, PORTABLE_FIELDS, type PortableCard, type RawRow } from './portable-card';

export const JSON_EXPORT_VERSION = 1;

/** Our JSON export: a small header plus the cards, stable field order. */
export function encodeJson(
  cards: readonly PortableCard[],
  meta: { exportedAt: Date; setName?: string },
): string {
  const ordered = cards.map((card) =>
    Object.fromEntries(PORTABLE_FIELDS.filter((f) => card[f] !== undefined).map((f) => [f, card[f]])),
  );
  return JSON.stringify(
    {
      version: JSON_EXPORT_VERSION,
      exportedAt: meta.exportedAt.toISOString(),
      ...(meta.setName ? { set: { name: meta.setName } } : {}),
      count: cards.length,
      cards: ordered,
    },
    null,
    2,
  );
}

/** Reads our JSON export, or a bare array of card objects. Invalid JSON or another shape is malformed. */
export function decodeJson(text: string): RawRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new MalformedFileError(`The JSON file is malformed: ${(err as Error).message}`);
  }
  const cards = Array.isArray(parsed)
    ? parsed
    : parsed && typeof parsed === 'object' && Array.isArray((parsed as { cards?: unknown }).cards)
      ? (parsed as { cards: unknown[] }).cards
      : undefined;
  if (!cards)
    throw new MalformedFileError('The JSON file must be an array of cards or an object with a "cards" array');
  return cards.map((item, index) => ({
    row: index + 1,
    data:
      item && typeof item === 'object' && !Array.isArray(item)
        ? (item as Record<string, unknown>)
        : { value: item },
  }));
}
