import type { BilingualDictionary } from '../domain/language/language-data';
import { installedLanguageData } from './language-data';
import { pivotDictionary } from './pivot.dictionary';

const DICTD = process.env.AI_DICTD_DIR ?? '/usr/share/dictd';
const WORDNET = process.env.AI_WORDNET_DIR ?? '/usr/share/wordnet';

/** A dictionary of a few words, for the agreement rule alone. */
const small = (from: string, to: string, words: Record<string, string[]>): BilingualDictionary => ({
  from,
  to,
  lookup: (h) =>
    words[h]
      ? [
          {
            headword: h,
            partOfSpeech: 'n',
            pronunciation: undefined,
            translations: words[h],
            examples: [],
            labels: [],
          },
        ]
      : [],
});

describe('translations through pivot languages', () => {
  it('When two pivots lead to the same word, Then it is the translation, marked with the pivots; one pivot alone is not enough', () => {
    const dict = pivotDictionary('en', 'it', [
      {
        language: 'fr',
        toPivot: small('en', 'fr', { king: ['dame', 'roi'], nail: ['clou'] }),
        fromPivot: small('fr', 'it', { roi: ['re'], dame: ['signora'], clou: ['chiodo'] }),
      },
      {
        language: 'de',
        toPivot: small('en', 'de', { king: ['König'], nail: ['Nagel'] }),
        fromPivot: small('de', 'it', { König: ['re'], Nagel: ['unghia'] }),
      },
    ]);
    expect(dict.lookup('king')).toEqual([
      expect.objectContaining({ translations: ['re'], via: ['fr', 'de'], examples: [] }),
    ]);
    // French says chiodo, German unghia (the finger nail): no agreement, no translation
    expect(dict.lookup('nail')).toEqual([]);
  });

  it('When the installed data lacks an English–Italian entry, Then the pivots translate it ("minute" → "minuto")', () => {
    const data = installedLanguageData({ wordnetDir: WORDNET, dictdDir: DICTD });
    const enIt = data.dictionary('en', 'it')!;
    expect(enIt.lookup('minute')).toEqual([]); // neither eng-ita nor ita-eng read backwards has it
    const [entry] = enIt.lookupIndirect!('minute');
    expect(entry).toMatchObject({ translations: expect.arrayContaining(['minuto']) });
    expect(entry!.via!.length).toBeGreaterThanOrEqual(2);
    // a word eng-spa has is not pivoted
    expect(data.dictionary('en', 'es')!.lookup('house')[0]!.via).toBeUndefined();
    expect(data.dictionary('en', 'de')!.lookupIndirect).toBeUndefined(); // German needs no pivots
  });
});
