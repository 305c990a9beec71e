import { join } from 'node:path';
import { parseIndexLine, parseSynsetLine, wordnetLexicon } from './wordnet.lexicon';

// Debian's wordnet-base (installed by deploy/local/infra.sh); AI_WORDNET_DIR overrides.
const WORDNET = process.env.AI_WORDNET_DIR ?? '/usr/share/wordnet';

describe('WordNet file lines', () => {
  it('When an index line is read, Then the lemma and its synset offsets come out (licence lines skipped)', () => {
    expect(
      parseIndexLine(
        'dog n 7 5 @ ~ #m #p %p 7 1 02084071 10114209 10023039 09886220 07676602 03901548 02710044  ',
      ),
    ).toEqual({
      lemma: 'dog',
      offsets: [2084071, 10114209, 10023039, 9886220, 7676602, 3901548, 2710044],
    });
    expect(parseIndexLine('  1 This software and database is being provided')).toBeUndefined();
  });

  it('When a data line is read, Then words, pointers, definition and examples are separated', () => {
    const s = parseSynsetLine(
      '00001740 03 n 02 entity 0 living_thing(a) 1 002 ~ 00001930 n 0000 ;c 00002137 n 0000 | that which exists; a thing; "the entity was real"; "another one"  ',
    );
    expect(s).toEqual({
      offset: 1740,
      lexname: 'noun.Tops',
      type: 'n',
      words: ['entity', 'living thing'],
      pointers: [
        { symbol: '~', offset: 1930, type: 'n' },
        { symbol: ';c', offset: 2137, type: 'n' },
      ],
      definition: 'that which exists; a thing',
      examples: ['the entity was real', 'another one'],
    });
  });
});

describe('WordNet from the wordnet-base package', () => {
  const wn = wordnetLexicon(WORDNET);

  it('When "dog" is looked up, Then its first noun sense is the domestic dog with its synonyms and example', () => {
    expect(wn.installed()).toBe(true);
    const [first] = wn.senses('dog', 'noun');
    expect(first).toMatchObject({
      partOfSpeech: 'noun',
      topic: 'noun.animal',
      definition: expect.stringContaining('member of the genus Canis'),
      synonyms: ['domestic dog', 'Canis familiaris'],
    });
    expect(first!.examples).toEqual(['the dog barked all night']);
  });

  it('When inflected forms are reduced, Then exceptions and suffix rules give known base forms only', () => {
    expect(wn.baseForms('went', 'verb')).toEqual(['go']);
    expect(wn.baseForms('houses', 'noun')).toEqual(['house']);
    expect(wn.baseForms('children', 'noun')).toEqual(['child']);
    expect(wn.baseForms('running', 'verb')).toEqual(['run']);
    expect(wn.baseForms('bigger', 'adjective')).toContain('big');
    expect(wn.baseForms('qwzxv')).toEqual([]);
    expect(wn.baseForms('glasses')).toEqual(expect.arrayContaining(['glasses', 'glass']));
  });

  it('When senses of any class are asked, Then nouns, verbs, adjectives and adverbs all come', () => {
    const classes = new Set(wn.senses('fast').map((s) => s.partOfSpeech));
    expect(classes).toEqual(new Set(['noun', 'verb', 'adjective', 'adverb']));
  });

  it('When a theme is walked, Then its hyponyms, parts and topic members come (food, the body)', () => {
    const food = wn.themeWords('food');
    expect(food).toEqual(expect.arrayContaining(['bread', 'cheese', 'meat']));
    const body = wn.themeWords('the body');
    expect(body).toEqual(expect.arrayContaining(['arm', 'leg', 'head']));
    expect(wn.themeWords('qwzxv')).toEqual([]);
  });

  it('When a theme has nothing under it (health), Then its opposite in WordNet themes it (illness, disease…)', () => {
    const health = wn.themeWords('health');
    expect(health).toEqual(expect.arrayContaining(['illness', 'disease', 'fever', 'flu']));
  });

  it('When the files are missing, Then the lexicon says it is not installed', () => {
    expect(wordnetLexicon(join(WORDNET, 'missing')).installed()).toBe(false);
  });
});
