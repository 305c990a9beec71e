import { getDet } from 'german-determiners';
import type { Reading } from '../domain/language/language-data';

const TYPES = ['DEFINITE', 'INDEFINITE', 'DEMONSTRATIVE', 'POSSESSIVE'] as const;
const CASES = ['NOMINATIVE', 'ACCUSATIVE', 'DATIVE', 'GENITIVE'] as const;
const GENDERS = ['M', 'F', 'N'] as const;
const NUMBERS = ['S', 'P'] as const;

/** The dictionary form each kind of determiner is listed under. */
const LEMMA: Record<(typeof TYPES)[number], (form: string) => string> = {
  DEFINITE: () => 'der',
  INDEFINITE: () => 'ein',
  DEMONSTRATIVE: () => 'dieser',
  // by the owner: sein (his, its), ihr (her, their)
  POSSESSIVE: (form) => (form.startsWith('ihr') ? 'ihr' : 'sein'),
};

/**
 * German's articles and determiners with their dictionary forms (die, dem, des → der; einen → ein;
 * seiner → sein), read off npm `german-determiners` (RosaeNLG) by asking it for every case, gender
 * and number it declines: a closed class that neither the full-form lists nor Hunspell's affix
 * rules reduce. Combinations it does not decline (possessives outside the nominative and genitive)
 * are skipped.
 */
export function germanDeterminers(): [string, Reading][] {
  const out = new Map<string, Reading>();
  for (const type of TYPES)
    for (const germanCase of CASES)
      for (const genderOwner of GENDERS)
        for (const numberOwner of NUMBERS)
          for (const genderOwned of GENDERS)
            for (const numberOwned of NUMBERS) {
              let form: string;
              try {
                form = getDet(type, germanCase, genderOwner, numberOwner, genderOwned, numberOwned);
              } catch {
                continue;
              }
              if (form && !out.has(form))
                out.set(form, { lemma: LEMMA[type](form), partOfSpeech: 'other', category: 'determiner' });
            }
  return [...out];
}
