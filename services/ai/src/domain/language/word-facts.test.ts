import type { BilingualDictionary, DictionaryEntry } from './language-data';
import { bestEntry, cardExample, mostCommonFirst, translateWord } from './word-facts';
import { commonnessIn } from './word-frequency';

const entry = (over: Partial<DictionaryEntry>): DictionaryEntry => ({
  headword: 'mother',
  partOfSpeech: undefined,
  pronunciation: undefined,
  translations: [],
  examples: [],
  labels: [],
  ...over,
});

const dictionary = (
  from: string,
  to: string,
  entries: Record<string, DictionaryEntry[]>,
): BilingualDictionary => ({
  from,
  to,
  lookup: (h) => entries[h.toLowerCase()] ?? [],
});

describe('bestEntry', () => {
  it('When entries differ in part of speech, examples and labels, Then the everyday one of the right class wins', () => {
    const tech = entry({ translations: ['Bock'], labels: ['techn.'] });
    const animal = entry({
      translations: ['Hund'],
      labels: ['zool.'],
      examples: [{ source: 'a dog', target: 'ein Hund' }],
    });
    const verb = entry({ translations: ['verfolgen'], partOfSpeech: 'v' });
    expect(bestEntry([tech, animal, verb], 'noun')).toBe(animal);
    expect(bestEntry([tech, animal, verb], 'verb')).toBe(verb);
    expect(bestEntry([entry({ translations: [] })], undefined)).toBeUndefined();
  });

  it('When the reverse dictionary leads back from one translation only, Then that entry wins over an earlier one', () => {
    const figurative = entry({ translations: ['Begründerin'] });
    const plain = entry({ translations: ['Mutter'], labels: ['soc.'] });
    expect(bestEntry([figurative, plain], 'noun')).toBe(figurative);
    expect(bestEntry([figurative, plain], 'noun', (t) => t === 'Mutter')).toBe(plain);
  });
});

describe('commonness in the target language', () => {
  const commonness = commonnessIn('de');

  it('When a German entry names a rare compound before the everyday word, Then the everyday word is the translation', () => {
    expect(commonness('Fenster')).toBe(2);
    expect(commonness('Sichtfenster')).toBe(0);
    const window = entry({
      headword: 'window',
      translations: ['Sichtfenster', 'Fenster', 'Bildschirmfenster'],
    });
    expect(mostCommonFirst(window, commonness)).toEqual(['Fenster', 'Sichtfenster', 'Bildschirmfenster']);
    const found = translateWord(
      dictionary('en', 'de', { window: [window] }),
      'window',
      'noun',
      undefined,
      undefined,
    );
    expect(found?.translation).toBe('Fenster');
    expect(found?.alternatives).toEqual(['Sichtfenster', 'Bildschirmfenster']);
  });

  it('When two entries tie on everything else, Then the one whose translation is common wins; senses in order keep their order', () => {
    const rare = entry({ translations: ['Trinkmilch'] });
    const common = entry({ translations: ['Milch'] });
    expect(bestEntry([rare, common], 'noun', undefined, commonness)).toBe(common);
    expect(bestEntry([rare, common], 'noun')).toBe(rare);
    // Mueller's numbered senses: the main one stays first however common a later one is
    const ordered = entry({ translations: ['Trinkmilch', 'Milch'], sensesInOrder: true });
    expect(mostCommonFirst(ordered, commonness)).toEqual(['Trinkmilch', 'Milch']);
    // equally common: the dictionary's order
    expect(mostCommonFirst(entry({ translations: ['Haus', 'Mutter'] }), commonness)).toEqual([
      'Haus',
      'Mutter',
    ]);
  });
});

describe('cardExample', () => {
  it('When examples are offered, Then the shortest phrase of 2–8 words with the word is chosen, never a conjugation table', () => {
    const examples = [
      { source: 'I/he/she cooked', target: 'ich/er/sie kochte' },
      { source: 'cook', target: 'kochen' },
      { source: 'cook a meal for the whole family tonight please now', target: '…' },
      { source: 'cook dinner', target: 'Abendessen kochen' },
    ];
    expect(cardExample(examples, 'cook')).toEqual({ source: 'cook dinner', target: 'Abendessen kochen' });
    expect(cardExample([{ source: 'something else entirely', target: 'x' }], 'cook')).toBeUndefined();
  });
});

describe('translateWord', () => {
  it('When the word itself is not a headword, Then its base forms from the lexicon are tried', () => {
    const de = dictionary('en', 'de', { house: [entry({ headword: 'house', translations: ['Haus'] })] });
    const lexicon = {
      baseForms: (w: string) => (w === 'houses' ? ['house'] : []),
      senses: () => [],
      themeWords: () => [],
    };
    expect(translateWord(de, 'houses', 'noun', lexicon)).toMatchObject({
      headword: 'house',
      translation: 'Haus',
    });
    expect(translateWord(de, 'houses', 'noun', undefined)).toBeUndefined();
  });

  it('When a dictionary translates into an inflected English form, Then the card gets its dictionary form of the class', () => {
    const kaufen = entry({ headword: 'kaufen', partOfSpeech: 'v', translations: ['buying', 'purchase'] });
    const de = dictionary('de', 'en', { kaufen: [kaufen] });
    // WordNet: "buying" is a noun, not a verb; "buy" and "purchase" are verbs
    const verbs = new Set(['buy', 'purchase']);
    const lexicon = {
      baseForms: (w: string) => (w === 'buying' ? ['buy'] : [w]),
      senses: (w: string, pos?: string) =>
        (pos === 'verb' ? verbs.has(w) : w === 'buying') ? [{ id: w, gloss: '', words: [w] }] : [],
      themeWords: () => [],
    } as unknown as Parameters<typeof translateWord>[3];
    expect(translateWord(de, 'kaufen', 'verb', lexicon)?.translation).toBe('buy');
    // the class from the entry when the caller names none
    expect(translateWord(de, 'kaufen', undefined, lexicon)?.translation).toBe('buy');
    // a noun card keeps the noun
    const kauf = entry({ headword: 'kauf', partOfSpeech: 'n', translations: ['buying'] });
    expect(
      translateWord(dictionary('de', 'en', { kauf: [kauf] }), 'kauf', 'noun', lexicon)?.translation,
    ).toBe('buying');
  });
});
