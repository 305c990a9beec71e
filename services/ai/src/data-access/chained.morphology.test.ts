import type { Morphology, Reading } from '../domain/language/language-data';
import { chainedMorphology } from './chained.morphology';

/** An analyser that knows the words of `known` and records what it was asked. */
function analyser(known: Record<string, string>, asked: string[][]): Morphology {
  return {
    language: 'ru',
    async analyse(words) {
      asked.push(words);
      const out = new Map<string, Reading[]>();
      for (const w of words) if (known[w]) out.set(w, [{ lemma: known[w]!, partOfSpeech: 'noun' }]);
      return out;
    },
  };
}

describe('analysers asked in turn', () => {
  it('When the first analyser knows a word, Then its readings answer and the next is asked only for the rest', async () => {
    const first: string[][] = [];
    const second: string[][] = [];
    const third: string[][] = [];
    const chain = chainedMorphology('ru', [
      analyser({ лошадей: 'лошадь', играли: 'игра' }, first),
      analyser({ играли: 'играть', читал: 'читать' }, second),
      analyser({ читал: 'читало', становятся: 'становиться' }, third),
    ]);
    const out = await chain.analyse(['лошадей', 'играли', 'читал', 'становятся', 'ъъъ']);
    expect(Object.fromEntries([...out].map(([w, r]) => [w, r.map((x) => x.lemma)]))).toEqual({
      лошадей: ['лошадь'],
      играли: ['игра'], // the first that knows it, not a mix
      читал: ['читать'],
      становятся: ['становиться'],
    });
    expect(first).toEqual([['лошадей', 'играли', 'читал', 'становятся', 'ъъъ']]);
    expect(second).toEqual([['читал', 'становятся', 'ъъъ']]);
    expect(third).toEqual([['становятся', 'ъъъ']]);
  });

  it('When every word is known early, Then the later analysers are not asked', async () => {
    const later: string[][] = [];
    const chain = chainedMorphology('ru', [analyser({ дом: 'дом' }, []), analyser({}, later)]);
    expect((await chain.analyse(['дом'])).get('дом')![0]!.lemma).toBe('дом');
    expect(later).toEqual([]);
  });
});
