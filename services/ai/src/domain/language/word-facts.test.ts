import type { BilingualDictionary, DictionaryEntry, Morphology, Reading } from './language-data';
import { bestEntry, cardExample, mostCommonFirst, translateWord, translateWordAnalysed } from './word-facts';
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
    expect(bestEntry([figurative, plain], 'noun', { leadsBack: (t) => (t === 'Mutter' ? 2 : 0) })).toBe(
      plain,
    );
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
    expect(bestEntry([rare, common], 'noun', { commonness })).toBe(common);
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

  it('When the analyser reads the word as its own dictionary form and as a form of another, Then the word itself is translated', () => {
    // Russian "море" is sea, and also the genitive of мор (pestilence); the analyser gives мор first
    const ru = dictionary('ru', 'en', {
      море: [entry({ headword: 'море', translations: ['sea'] })],
      мор: [entry({ headword: 'мор', translations: ['plague'] })],
    });
    expect(translateWord(ru, 'море', undefined, undefined, undefined, ['мор', 'море'])).toMatchObject({
      headword: 'море',
      translation: 'sea',
    });
    const de = dictionary('de', 'en', { kind: [entry({ headword: 'Kind', translations: ['child'] })] });
    // a form that is no dictionary form of its own is still translated by its dictionary form
    expect(translateWord(de, 'kinder', undefined, undefined, undefined, ['Kind'])).toMatchObject({
      headword: 'Kind',
      translation: 'child',
    });
  });

  it('When the dictionary lists a form as written with a meaning of its own, Then it is translated as written; a form meaning what its lemma means stays with its lemma', () => {
    // Apertium's Spanish analyser gives "hija" the lemma hijo; FreeDict spa-eng lists both. FreeDict
    // deu-eng lists "Kinder" (children), a form of Kind (child)
    const es = dictionary('es', 'en', {
      hija: [entry({ headword: 'hija', translations: ['daughter'] })],
      // Apertium's eng-spa read backwards: one lemma for both genders, no evidence of the same meaning
      hijo: [
        entry({ headword: 'hijo', translations: ['son', 'daughter'], readBackwards: true }),
        entry({ headword: 'hijo', translations: ['son'] }),
      ],
    });
    const de = dictionary('de', 'en', {
      kinder: [entry({ headword: 'Kinder', translations: ['children'] })],
      kind: [entry({ headword: 'Kind', translations: ['child'] })],
    });
    const lexicon = {
      baseForms: (w: string) => (w === 'children' ? ['child'] : []),
      senses: () => [],
      themeWords: () => [],
    };
    expect(translateWord(es, 'hija', 'noun', lexicon, undefined, ['hijo'])).toMatchObject({
      headword: 'hija',
      translation: 'daughter',
    });
    // a look-up asks no class: the same
    expect(translateWord(es, 'hija', undefined, lexicon, undefined, ['hijo'])?.translation).toBe('daughter');
    expect(translateWord(de, 'kinder', undefined, lexicon, undefined, ['Kind'])).toMatchObject({
      headword: 'Kind',
      translation: 'child',
    });
    // told by English's morphology: without it, and for another class, the lemma as before
    expect(translateWord(es, 'hija', 'noun', undefined, undefined, ['hijo'])?.translation).toBe('son');
    expect(translateWord(es, 'hija', 'verb', lexicon, undefined, ['hijo'])?.translation).toBe('son');
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

describe('translations that agree with the card', () => {
  it("When an unmarked entry translates a verb by a noun, Then the reverse dictionary's marks send the verb entry first", () => {
    // FreeDict eng-deu: "sleep" has an unmarked entry Schlaf (with many examples) and a verb entry
    // whose regional labels cost it; deu-eng marks Schlaf a noun
    const en = dictionary('en', 'de', {
      sleep: [
        entry({
          headword: 'sleep',
          translations: ['Schlaf'],
          examples: Array(5).fill({ source: 's', target: 't' }),
        }),
        entry({
          headword: 'sleep',
          partOfSpeech: 'v',
          translations: ['schlafen', 'pennen'],
          labels: ['Norddt.'],
        }),
      ],
    });
    const de = dictionary('de', 'en', {
      schlaf: [entry({ headword: 'Schlaf', partOfSpeech: 'n', translations: ['sleep'] })],
      schlafen: [entry({ headword: 'schlafen', partOfSpeech: 'v', translations: ['sleep'] })],
    });
    expect(translateWord(en, 'sleep', 'verb', undefined, de)?.translation).toBe('schlafen');
    expect(translateWord(en, 'sleep', 'noun', undefined, de)?.translation).toBe('Schlaf');
    // without the reverse dictionary nothing tells the unmarked entry's class: examples decide
    expect(translateWord(en, 'sleep', 'verb', undefined, undefined)?.translation).toBe('Schlaf');
  });

  it('When one unmarked entry mixes classes, Then the translation of the class asked comes first', () => {
    const en = dictionary('en', 'fr', {
      close: [entry({ headword: 'close', translations: ['intime', 'proche', 'fermer'] })],
    });
    const fr = dictionary('fr', 'en', {
      intime: [entry({ partOfSpeech: 'adj', translations: ['close', 'intimate'] })],
      proche: [entry({ partOfSpeech: 'adj', translations: ['near', 'close'] })],
      fermer: [entry({ partOfSpeech: 'vt', translations: ['close', 'shut'] })],
    });
    expect(translateWord(en, 'close', 'verb', undefined, fr)).toMatchObject({
      translation: 'fermer',
      alternatives: ['proche', 'intime'],
    });
    // then the common one first among those of the class (commonnessIn)
    expect(translateWord(en, 'close', 'adjective', undefined, fr)?.translation).toBe('proche');
    expect(translateWord(en, 'close', 'verb', undefined, undefined)?.translation).not.toBe('fermer');
  });

  it('When two translations lead back to the word, Then the one whose own first sense it is wins', () => {
    // deu-eng "Kirche": church service, service, church; "service" leads back to Kirche only as a
    // later translation of one of its senses, "church" as the first
    const de = dictionary('de', 'en', {
      kirche: [entry({ headword: 'Kirche', partOfSpeech: 'n', translations: ['service', 'church'] })],
    });
    const en = dictionary('en', 'de', {
      service: [entry({ translations: ['Dienst'] }), entry({ translations: ['Gottesdienst', 'Kirche'] })],
      church: [entry({ translations: ['Kirche'] })],
    });
    expect(translateWord(de, 'kirche', 'noun', undefined, en)?.translation).toBe('church');
    expect(translateWord(de, 'kirche', 'noun', undefined, undefined)?.translation).toBe('service');
  });

  it('When near-synonyms lead back to the word alike, Then the clearly more frequent English word is shown, never another sense', () => {
    // FreeDict ita-eng "carne": flesh, meat; nld-eng "paard": knight, horse; nld-eng "muis": mouse,
    // ball (of the thumb). SUBTLEX ranks: meat 1468, flesh 2459; horse 807, knight 2107; ball 725, mouse 2736
    const it = dictionary('it', 'en', {
      carne: [entry({ headword: 'carne', translations: ['flesh', 'meat'] })],
    });
    const enIt = dictionary('en', 'it', {
      flesh: [entry({ translations: ['carne'] })],
      meat: [entry({ translations: ['carne'] })],
    });
    expect(translateWord(it, 'carne', 'noun', undefined, enIt)?.translation).toBe('meat');
    // the rank alone decides nothing: without the reverse dictionary, the dictionary's order
    expect(translateWord(it, 'carne', 'noun', undefined, undefined)?.translation).toBe('flesh');

    // "knight" leads back to paard only as a later sense: the more frequent word is shown
    const nl = dictionary('nl', 'en', {
      paard: [entry({ headword: 'paard', translations: ['knight', 'horse'] })],
      muis: [entry({ headword: 'muis', translations: ['mouse', 'ball'] })],
    });
    const enNl = dictionary('en', 'nl', {
      knight: [entry({ translations: ['ridder', 'paard'] })],
      horse: [entry({ translations: ['paarden'] }), entry({ translations: ['paard', 'ros'] })],
      // "mouse" mainly means muis; "ball" leads back to it only through a minor entry of its own
      mouse: [entry({ translations: ['muis'] })],
      ball: [entry({ translations: ['bal'] }), entry({ translations: ['muis'] })],
    });
    expect(translateWord(nl, 'paard', 'noun', undefined, enNl)?.translation).toBe('horse');
    expect(translateWord(nl, 'muis', 'noun', undefined, enNl)?.translation).toBe('mouse');

    // ranks a few apart are no evidence: the dictionary's first stays (always 184, ever 174)
    const fr = dictionary('fr', 'en', { toujours: [entry({ translations: ['always', 'ever'] })] });
    const enFr = dictionary('en', 'fr', {
      always: [entry({ translations: ['toujours'] })],
      ever: [entry({ translations: ['toujours'] })],
    });
    expect(translateWord(fr, 'toujours', 'adverb', undefined, enFr)?.translation).toBe('always');
  });

  it('When the reverse dictionary is the same reviewed pair read backwards, Then it is no evidence of leading back', () => {
    // Apertium's "key": clave, llave; read backwards, clave and llave both give key first
    const en = dictionary('en', 'es', {
      key: [entry({ headword: 'key', partOfSpeech: 'n', primary: true, translations: ['clave', 'llave'] })],
    });
    const backwards = (w: string) =>
      entry({ headword: w, partOfSpeech: 'n', translations: ['key'], readBackwards: true });
    const es = dictionary('es', 'en', {
      clave: [backwards('clave')],
      llave: [backwards('llave'), entry({ headword: 'llave', translations: ['key', 'wrench'] })],
    });
    expect(translateWord(en, 'key', 'noun', undefined, es)?.translation).toBe('llave');
    const onlyBackwards = dictionary('es', 'en', {
      clave: [backwards('clave')],
      llave: [backwards('llave')],
    });
    expect(translateWord(en, 'key', 'noun', undefined, onlyBackwards)?.translation).toBe('clave');
  });

  it("When the target language's analyser reads the translations, Then a verb card gets the verb's dictionary form", async () => {
    // FreeDict eng-por lists "help" as one unmarked entry, nouns first; por-eng has no marks
    const en = dictionary('en', 'pt', { help: [entry({ translations: ['ajuda', 'socorro', 'ajudar'] })] });
    const readings: Record<string, Reading[]> = {
      ajuda: [
        { lemma: 'ajuda', partOfSpeech: 'noun' },
        { lemma: 'ajudar', partOfSpeech: 'verb' },
      ],
      socorro: [{ lemma: 'socorro', partOfSpeech: 'noun' }],
      ajudar: [{ lemma: 'ajudar', partOfSpeech: 'verb' }],
    };
    const asked: string[][] = [];
    const pt: Morphology = {
      language: 'pt',
      analyse: async (words) => {
        asked.push(words);
        return new Map(words.map((w) => [w, readings[w] ?? []]));
      },
    };
    expect((await translateWordAnalysed(pt, en, 'help', 'verb', undefined))?.translation).toBe('ajudar');
    expect(asked).toEqual([['ajuda', 'socorro', 'ajudar']]);
    expect((await translateWordAnalysed(pt, en, 'help', 'noun', undefined))?.translation).toBe('ajuda');
    // an analyser that reads no class (German Hunspell's "other") changes nothing
    const silent: Morphology = {
      language: 'pt',
      analyse: async (words) =>
        new Map(words.map((w) => [w, [{ lemma: w, partOfSpeech: 'other' as const }]])),
    };
    expect((await translateWordAnalysed(silent, en, 'help', 'verb', undefined))?.translation).toBe('ajuda');
    // an analyser that fails leaves the choice to the dictionaries
    const failing: Morphology = { language: 'pt', analyse: () => Promise.reject(new Error('lt-proc gone')) };
    expect((await translateWordAnalysed(failing, en, 'help', 'verb', undefined))?.translation).toBe('ajuda');
  });
});
