import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hunspellSpeller, lowerCaseMap, parseIspell, suggestionDictionary } from './hunspell.speller';

const FR = '/usr/share/hunspell/fr';
const EN = '/usr/share/hunspell/en_US';
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

  it('When the dictionary already sets MAXNGRAMSUGS, Then the copy sets it once, to 0, byte for byte, in one folder every process reuses', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hunspell-test-'));
    try {
      // an ISO-8859-1 dictionary: its "é" is the byte 0xE9, which must survive the copy as it is
      writeFileSync(
        path.join(dir, 'xx.aff'),
        Buffer.from('SET ISO8859-1\nMAXNGRAMSUGS 4\nTRY abc\xe9\n', 'latin1'),
      );
      writeFileSync(path.join(dir, 'xx.dic'), '1\nabc\n');
      const copy = suggestionDictionary(path.join(dir, 'xx'), dir);
      expect(path.dirname(copy)).not.toBe(dir);
      const affix = readFileSync(`${copy}.aff`, 'latin1');
      expect(affix.match(/^MAXNGRAMSUGS.*$/gm)).toEqual(['MAXNGRAMSUGS 0']);
      expect(readFileSync(`${copy}.aff`).includes(Buffer.from('TRY abc\xe9\n', 'latin1'))).toBe(true);
      expect(readFileSync(`${copy}.dic`, 'utf8')).toBe('1\nabc\n');
      // a second process (or a restart) finds the same copy: nothing piles up
      expect(suggestionDictionary(path.join(dir, 'xx'), dir)).toBe(copy);
      expect(readdirSync(path.dirname(copy))).toEqual(['xx.aff', 'xx.dic']);
      // a dictionary that cannot be copied is used as it is, and the reason is reported
      const errors: Error[] = [];
      expect(suggestionDictionary(path.join(dir, 'missing'), dir, (e) => errors.push(e))).toBe(
        path.join(dir, 'missing'),
      );
      expect(errors).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('When the MAP table has upper-case letters, Then the copy keeps the lower-case ones, drops groups left with one, and recounts', () => {
    const affix = 'SET UTF-8\nTRY eaE\nMAP 4\nMAP aàâäAÀÂÄ\nMAP bB\nMAP ß(ss)(SS)\nMAP éÉ\nREP 1\nREP f ph\n';
    expect(lowerCaseMap(affix)).toBe('SET UTF-8\nTRY eaE\nMAP 2\nMAP aàâä\nMAP ß(ss)\nREP 1\nREP f ph\n');
    // a table of upper-case-only pairs goes altogether; a file without a table is left as it is
    expect(lowerCaseMap('MAP 1\nMAP bB\nKEY qwe\n')).toBe('KEY qwe\n');
    expect(lowerCaseMap('TRY abc\n')).toBe('TRY abc\n');
  });

  (installed ? it : it.skip)(
    'When French words are misspelled, capitalised or not, Then the lower-case MAP table still suggests their accented form',
    async () => {
      const speller = hunspellSpeller({ language: 'fr', dictionary: FR, timeoutMs: 10_000 });
      try {
        const suggestions = await speller.suggest(['fenètre', 'Ecole', 'ECOLE', 'Elephant', 'Garcon']);
        expect(suggestions?.get('fenètre')?.[0]).toBe('fenêtre');
        expect(suggestions?.get('Ecole')?.[0]).toBe('École');
        expect(suggestions?.get('ECOLE')?.[0]).toBe('ÉCOLE');
        expect(suggestions?.get('Elephant')?.[0]).toBe('Éléphant');
        expect(suggestions?.get('Garcon')?.[0]).toBe('Garçon');
      } finally {
        speller.stop();
      }
    },
  );

  (existsSync(`${EN}.dic`) && installed ? it : it.skip)(
    'When a typo is one slip, Then its suggestion comes from the edit-based pass alone ("pakage": "package", not the n-gram "page")',
    async () => {
      const speller = hunspellSpeller({ language: 'en', dictionary: EN, timeoutMs: 10_000 });
      try {
        const suggestions = await speller.suggest(['pakage', 'goverment']);
        expect(suggestions?.get('pakage')).toEqual(['package']);
        expect(suggestions?.get('goverment')).toEqual(['government']);
      } finally {
        speller.stop();
      }
    },
  );
});
