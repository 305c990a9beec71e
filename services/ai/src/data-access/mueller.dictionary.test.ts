import { join } from 'node:path';
import { muellerDictionary, parseMuellerEntry } from './mueller.dictionary';

// Debian's mueller7-dict (installed by deploy/local/infra.sh); AI_DICTD_DIR overrides.
const DICTD = process.env.AI_DICTD_DIR ?? '/usr/share/dictd';

describe('Mueller English–Russian entries', () => {
  it('When an entry has parts of speech and numbered senses, Then each part is an entry with its translations and examples', () => {
    const [noun, verb] = parseMuellerEntry(
      'people\n   [↗pi:pl]\n   1. _n.\n      1) народ, нация\n      2) (употр. как _pl.) люди; население; young people\n      молодёжь\n   2. _v.\n      1) заселять, населять\n',
    );
    expect(noun).toMatchObject({
      headword: 'people',
      partOfSpeech: 'n',
      pronunciation: 'ˈpi:pl',
      translations: ['народ', 'нация', 'люди', 'население'],
      examples: [{ source: 'young people', target: 'молодёжь' }],
    });
    expect(verb).toMatchObject({ partOfSpeech: 'v', translations: ['заселять', 'населять'] });
  });

  it('When an entry only refers to another (went: _p. от go), Then it gives no translation', () => {
    expect(parseMuellerEntry('went\n   [wɛnt] _p. от go 1\n')[0]!.translations).toEqual([]);
  });

  it('When a homograph carries a subject label (guy _II _мор.), Then its entries carry it', () => {
    const entries = parseMuellerEntry(
      'guy\n   _I  [gaɪ]\n      1. _n.\n         1) пугало, чучело\n   _II [gaɪ] _мор.\n      1. _n. оттяжка, ванта\n',
    );
    expect(entries.map((e) => [e.translations[0], e.labels])).toEqual([
      ['пугало', []],
      ['оттяжка', ['мор.']],
    ]);
  });

  it('When the installed dictionary is asked, Then it finds everyday words with examples', () => {
    const dict = muellerDictionary(DICTD);
    expect(dict.installed()).toBe(true);
    const [week] = dict.lookup('Week');
    expect(week).toMatchObject({ partOfSpeech: 'n', translations: expect.arrayContaining(['неделя']) });
    expect(week!.examples).toContainEqual({ source: 'in a week', target: 'через неделю' });
    expect(dict.lookup('health')[0]!.translations[0]).toBe('здоровье');
    expect(dict.lookup('qwzxv')).toEqual([]);
  });

  it('When the package is not installed, Then the dictionary says so', () => {
    expect(muellerDictionary(join(DICTD, 'no-such-dir')).installed()).toBe(false);
  });
});
