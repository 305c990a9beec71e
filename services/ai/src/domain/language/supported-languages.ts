import { AppError } from '@lingua/errors';

/** Languages the offline provider knows something about (ISO 639-1). */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
  ru: 'Russian',
};

/**
 * The translation directions of the offline provider: the FreeDict dictionaries Debian packages
 * (`dict-freedict-<from>-<to>`; English → Russian also Mueller's, `mueller7-dict`). English → each,
 * and back: Debian has no FreeDict rus-eng, so Russian → English reads the English–Russian
 * dictionaries backwards.
 */
export const SUPPORTED_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['en', 'de'],
  ['en', 'fr'],
  ['en', 'es'],
  ['en', 'it'],
  ['en', 'pt'],
  ['en', 'nl'],
  ['en', 'ru'],
  ['de', 'en'],
  ['fr', 'en'],
  ['es', 'en'],
  ['it', 'en'],
  ['pt', 'en'],
  ['nl', 'en'],
  ['ru', 'en'],
];

export const isSupportedPair = (from: string, to: string) =>
  SUPPORTED_PAIRS.some(([f, t]) => f === from && t === to);

export const pairName = (from: string, to: string) => `${from}-${to}`;

/**
 * A client asked for a language or a direction this provider does not offer: 400 VAL001 naming the
 * field, with `reason: "unsupported_language"` and what is supported, so an app can show the choice.
 */
export function unsupportedLanguage(field: string, message: string, supported: string[]): AppError {
  return new AppError('VALIDATION_ERROR', message, {
    details: { [field]: [message], reason: 'unsupported_language', supported },
  });
}

/** Throws unless `from → to` is a supported direction (`to` undefined: no translation asked). */
export function assertSupportedPair(
  from: string,
  to: string | undefined,
  fields: { from: string; to: string },
) {
  if (!SUPPORTED_PAIRS.some(([f]) => f === from))
    throw unsupportedLanguage(
      fields.from,
      `Language "${from}" is not supported; supported: ${[...new Set(SUPPORTED_PAIRS.map(([f]) => f))].join(', ')}`,
      [...new Set(SUPPORTED_PAIRS.map(([f]) => f))],
    );
  if (to !== undefined && !isSupportedPair(from, to)) {
    const targets = SUPPORTED_PAIRS.filter(([f]) => f === from).map(([, t]) => t);
    throw unsupportedLanguage(
      fields.to,
      `Translation ${from} → ${to} is not supported; from "${from}" the supported targets are: ${targets.join(', ')}`,
      targets.map((t) => pairName(from, t)),
    );
  }
}
