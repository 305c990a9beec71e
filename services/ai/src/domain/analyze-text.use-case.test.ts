import { analyzeText } from './analyze-text.use-case';

describe('analyzeText', () => {
  it('When a text is simple, Then it is beginner level with counts from its words and sentences', () => {
    const r = analyzeText({ text: 'I have a cat. The cat is big. I like my cat.' });
    expect(r).toMatchObject({
      difficulty: 'beginner',
      wordCount: 12,
      uniqueWords: 9, // i, have, a, cat, the, is, big, like, my
      sentenceCount: 3,
      averageSentenceLength: 4,
    });
    expect(r.readabilityScore).toBeGreaterThan(80);
    expect(r.suggestedWords).toEqual([]);
  });

  it('When a text uses rare words in long sentences, Then it is advanced and suggests those words', () => {
    const r = analyzeText({
      text:
        'The ostensibly meticulous jurisprudence of the tribunal notwithstanding, its deliberations ' +
        'were characterised by an unmistakable equivocation concerning the admissibility of circumstantial evidence.',
    });
    expect(r.difficulty).toBe('advanced');
    expect(r.readabilityScore).toBeLessThan(30);
    const words = r.suggestedWords.map((w) => w.word);
    expect(words).toEqual(expect.arrayContaining(['jurisprudence', 'equivocation', 'admissibility']));
    expect(words).not.toContain('the');
    for (const w of r.suggestedWords) expect(['B1', 'B2', 'C1', 'C2']).toContain(w.cefrLevel);
  });
});
