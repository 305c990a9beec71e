import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { openDictText, parseDictzipHeader } from './dictzip.reader';
import {
  decodeDictdNumber,
  dictdIndex,
  freedictDictionary,
  invertedDictionary,
  parseFreedictEntry,
} from './freedict.dictionary';

// Debian's dict-freedict-* packages (installed by deploy/local/infra.sh); AI_DICTD_DIR overrides.
const DICTD = process.env.AI_DICTD_DIR ?? '/usr/share/dictd';

describe('dictd index', () => {
  it('When offsets are read, Then they are base64 digits, most significant first', () => {
    expect(decodeDictdNumber('A')).toBe(0);
    expect(decodeDictdNumber('x')).toBe(49);
    expect(decodeDictdNumber('BA')).toBe(64);
    expect(decodeDictdNumber('BAK3S')).toBe((((1 * 64 + 0) * 64 + 10) * 64 + 55) * 64 + 18);
    expect(() => decodeDictdNumber('a-b')).toThrow('not a dictd base64 number');
  });

  it('When an index is searched, Then a headword is found case-insensitively with every place, meta entries left out', () => {
    const index = dictdIndex(
      Buffer.from('00-database-info\tA\tB\ngo\tC\tE\nHouse\tBA\tC\nhouse\tBB\tD\nhouse-boat\tBC\tE\n'),
    );
    expect(index.lineCount).toBe(4);
    expect(index.find('HOUSE')).toEqual([
      [64, 2],
      [65, 3],
    ]);
    expect(index.find('houseboat')).toEqual([]); // same sort key, another headword
    expect(index.find('house-boat')).toEqual([[66, 4]]);
    expect(index.find('00-database-info')).toEqual([]);
  });

  it('When an index is not in dictd order, Then it is sorted on reading and still searched correctly', () => {
    const index = dictdIndex(Buffer.from('zebra\tB\tB\napple\tC\tC\nmango\tD\tD\n'));
    expect(index.find('apple')).toEqual([[2, 2]]);
    expect(index.find('zebra')).toEqual([[1, 1]]);
  });
});

describe('dictzip', () => {
  it('When a file is plain gzip (no RA field), Then it is not taken for dictzip but still read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dictzip-'));
    try {
      const file = join(dir, 'plain.dict.dz');
      writeFileSync(file, gzipSync(Buffer.from('hello dictionary world')));
      expect(parseDictzipHeader(gzipSync(Buffer.from('x')))).toBeUndefined();
      const text = openDictText(file);
      expect(text.read(6, 10)).toBe('dictionary');
      text.close();
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('When a Debian dictzip file is opened, Then its RA table covers the whole text and chunks inflate on their own', () => {
    const text = openDictText(join(DICTD, 'freedict-eng-deu.dict.dz'));
    try {
      expect(text.read(0, 22)).toBe('\n00-database-dictfmt-1');
      // any range, also across chunk borders, equals the same range of the whole file inflated at once
      const whole = gunzipSync(readFileSync(join(DICTD, 'freedict-eng-deu.dict.dz')));
      for (const offset of [0, 65_000, 1_000_000, 7_777_777, whole.length - 300]) {
        expect(text.read(offset, 200_000)).toBe(whole.subarray(offset, offset + 200_000).toString('utf8'));
      }
      const index = dictdIndex(readFileSync(join(DICTD, 'freedict-eng-deu.index')));
      const [offset, length] = index.find('house')[1]!;
      expect(text.read(offset, length)).toMatch(/^house \/hˈaʊs\/\nHaus <neut>/);
    } finally {
      text.close();
    }
  });
});

describe('FreeDict entries', () => {
  it('When an entry has grammar marks, labels, examples and cross references, Then only translations and examples are kept', () => {
    const entry = parseFreedictEntry(
      [
        'dog /dˈɒɡ/',
        'Hund <masc> [zool.]',
        '      "train a dog"  - einen Hund abrichten',
        '   Synonym: {dawg}',
        '',
        ' see: {dogs}, {dawgs}',
      ].join('\n'),
    );
    expect(entry).toEqual({
      headword: 'dog',
      partOfSpeech: undefined,
      pronunciation: 'dˈɒɡ',
      translations: ['Hund'],
      examples: [{ source: 'train a dog', target: 'einen Hund abrichten' }],
      labels: ['zool.'],
    });
  });

  it('When senses are numbered and the head line names a part of speech, Then each translation is listed once', () => {
    const entry = parseFreedictEntry('aller /ale/ <v>\n1. fare\n2. go, ride, travel\n');
    expect(entry.partOfSpeech).toBe('v');
    expect(entry.translations).toEqual(['fare', 'go', 'ride', 'travel']);
    const go = parseFreedictEntry(
      'go /ɡˈəʊ/ (went /wˈɛnt/ <>, gone /ɡˈɒn/ <>) <v>\narbeiten, führen <v>\n see: {going}',
    );
    expect(go).toMatchObject({ headword: 'go', partOfSpeech: 'v', translations: ['arbeiten', 'führen'] });
    const haus = parseFreedictEntry('Haus /hˈaʊs/ <neut, n, sg>\nhouse <n>\n');
    expect(haus).toMatchObject({
      headword: 'Haus',
      partOfSpeech: 'n',
      pronunciation: 'hˈaʊs',
      translations: ['house'],
    });
  });
});

describe('FreeDict dictionaries from the Debian packages', () => {
  const pairs: Array<[string, string, string, string]> = [
    ['eng', 'deu', 'house', 'Haus'],
    ['eng', 'fra', 'house', 'maison'],
    ['eng', 'spa', 'house', 'casa'],
    ['eng', 'ita', 'dog', 'cane'],
    ['eng', 'por', 'dog', 'cão'],
    ['eng', 'nld', 'house', 'huis'],
    ['eng', 'rus', 'house', 'дом'],
    ['deu', 'eng', 'Haus', 'house'],
    ['fra', 'eng', 'maison', 'house'],
    ['spa', 'eng', 'casa', 'house'],
    ['ita', 'eng', 'casa', 'house'],
    ['por', 'eng', 'casa', 'house'],
    ['nld', 'eng', 'huis', 'house'],
  ];
  it.each(pairs)(
    'When %s→%s is asked for "%s", Then one entry translates it as "%s"',
    (from, to, word, expected) => {
      const dict = freedictDictionary(DICTD, from, to, { from, to });
      expect(dict.installed()).toBe(true);
      const all = dict.lookup(word).flatMap((e) => e.translations);
      expect(all).toContain(expected);
    },
  );

  it('When a dictionary has phrase examples, Then they come with their translation (eng→deu "house")', () => {
    const dict = freedictDictionary(DICTD, 'eng', 'deu', { from: 'en', to: 'de' });
    const haus = dict.lookup('House').find((e) => e.translations[0] === 'Haus')!;
    expect(haus.examples).toContainEqual({ source: 'build a house', target: 'ein Haus bauen' });
    expect(dict.lookup('qwzxv')).toEqual([]);
  });

  it('When a package is not installed, Then the dictionary says so instead of failing to open', () => {
    const dict = freedictDictionary(join(DICTD, 'no-such-dir'), 'eng', 'deu', { from: 'en', to: 'de' });
    expect(dict.installed()).toBe(false);
    expect(existsSync(dict.files.index)).toBe(false);
  });
});

describe('a dictionary read backwards', () => {
  it('When the reverse dictionary is read backwards, Then its translations become headwords with examples turned round', () => {
    const nlEn = freedictDictionary(DICTD, 'nld', 'eng', { from: 'nl', to: 'en' });
    const backwards = invertedDictionary(nlEn);
    expect(backwards).toMatchObject({ from: 'en', to: 'nl' });
    // eng-nld's own "car" entry has no translation; nld-eng has "auto" → car
    expect(
      freedictDictionary(DICTD, 'eng', 'nld', { from: 'en', to: 'nl' }).lookup('car')[0]!.translations,
    ).toEqual([]);
    expect(backwards.lookup('car').flatMap((e) => e.translations)).toContain('auto');
    expect(backwards.lookup('qwzxv')).toEqual([]);
  });
});
