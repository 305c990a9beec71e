import type { IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import { z } from 'zod';
import { currentRequestContext } from '@lingua/logger';
import de from './messages/de.json';
import en from './messages/en.json';
import es from './messages/es.json';
import fr from './messages/fr.json';
import it from './messages/it.json';
import nl from './messages/nl.json';
import pt from './messages/pt.json';
import ru from './messages/ru.json';

/** The languages the apps are offered in (the AI's eight); English is the fallback. */
export const LANGUAGES = ['en', 'de', 'es', 'fr', 'it', 'pt', 'nl', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];
export type MessageKey = keyof typeof en;

/** The message catalogues: data (src/messages/<language>.json), one key set, checked by a test. */
export const CATALOGUES: Record<Language, Record<string, string>> = { en, de, es, fr, it, pt, nl, ru };

/** The best of LANGUAGES for an Accept-Language header (q-values, `es-ES` → es); English when none fits. */
export function negotiateLanguage(req: Pick<IncomingMessage, 'headers'>): Language {
  if (!req.headers['accept-language']) return 'en';
  return (new Negotiator(req).language([...LANGUAGES]) as Language | undefined) ?? 'en';
}

/** The language of the work in progress (the request's), English outside a request. */
export const currentLanguage = (): Language => (currentRequestContext()?.language as Language) ?? 'en';

/** A message in `language` (English when the catalogue lacks it), `{name}` replaced from params. */
export function translate(
  key: MessageKey,
  params: Record<string, string | number> = {},
  language: Language = currentLanguage(),
): string {
  const text = CATALOGUES[language][key] ?? CATALOGUES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/** A price as the reader writes it: `Intl` formats the currency for the language. */
export const formatPrice = (amountMinor: number, currency: string, language: Language = currentLanguage()) =>
  new Intl.NumberFormat(language, { style: 'currency', currency }).format(amountMinor / 100);

/**
 * zod's messages (validation details) in the request's language, through zod's own locales; a
 * message a schema sets itself stays as written. Installed once per process.
 */
let zodLocalised = false;
export function localiseZodMessages(): void {
  if (zodLocalised) return;
  zodLocalised = true;
  const locales: Record<Language, { localeError: z.core.$ZodErrorMap }> = {
    en: z.locales.en(),
    de: z.locales.de(),
    es: z.locales.es(),
    fr: z.locales.fr(),
    it: z.locales.it(),
    pt: z.locales.pt(),
    nl: z.locales.nl(),
    ru: z.locales.ru(),
  };
  z.config({ localeError: (issue) => locales[currentLanguage()].localeError(issue) });
}
