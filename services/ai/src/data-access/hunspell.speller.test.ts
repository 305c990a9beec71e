import { existsSync } from 'node:fs';
import { hunspellSpeller, parseIspell } from './hunspell.speller';

const FR = '/usr/share/hunspell/fr';
const installed = existsSync(`${FR}.dic`) && existsSync('/usr/bin/hunspell');

describe('Hunspell spelling', () => {
  it('When ispell pipe output is parsed, Then each input line gets its suggestions, a split word is misspelled if a part is', () => {
    const out = parseIspell(
      '@(#) International Ispell Version 3.2.06 (but really Hunspell 1.7.1)\n' +
        '& mangaient 4 1: magnaient, mangeaient, maniaient, mandaient\n\n*\n\n*\n# xqz 3\n\n',
      ['mangaient', 'maison', "l'xqz"],
    );
    expect(out.get('mangaient')).toEqual({
      correct: false,
      suggestions: ['magnaient', 'mangeaient', 'maniaient', 'mandaient'],
    });
    expect(out.get('maison')).toEqual({ correct: true, suggestions: [] });
    expect(out.get("l'xqz")!.correct).toBe(false);
  });

  (installed ? it : it.skip)(
    'When words go through the long-lived processes, Then only the misspelled ones come back, and suggestions come for those asked',
    async () => {
      const speller = hunspellSpeller({ language: 'fr', dictionary: FR, timeoutMs: 10_000 });
      try {
        const [wrong, again] = await Promise.all([
          speller.misspelled(['maison', 'mangaient', "l'homme", '^$']),
          speller.misspelled(['cuisinne', 'bonjour']),
        ]);
        expect(wrong).toEqual(new Set(['mangaient']));
        expect(again).toEqual(new Set(['cuisinne']));
        const suggestions = await speller.suggest(['mangaient']);
        expect(suggestions?.get('mangaient')).toContain('mangeaient');
      } finally {
        speller.stop();
      }
    },
  );
});
