import { applyGrammarErrors } from './grammar-errors';
import type { GrammarError } from './language-data';

const error = (
  start: number,
  end: number,
  rule: string,
  kind: string,
  suggestions: string[],
): GrammarError => ({
  start,
  end,
  rule,
  kind,
  suggestions,
  message: `${rule} says so`,
});

describe('applyGrammarErrors', () => {
  it('When one rule offers two fixes, Then only its first is applied', () => {
    // "Elle sont": make the verb singular, or the pronoun plural
    const r = applyGrammarErrors('Elle sont là.', [
      error(5, 9, '#1', 'conj', ['est']),
      error(0, 4, '#1', 'conj', ['Elles']),
    ]);
    expect(r.corrected).toBe('Elle est là.');
    expect(r.corrections).toEqual([
      { type: 'agreement', original: 'sont', suggestion: 'est', message: '#1 says so' },
    ]);
  });

  it('When errors overlap, come out of order or lie outside the sentence, Then the first taken wins and the text stays whole', () => {
    const r = applyGrammarErrors('il a manger des pomme', [
      error(16, 21, '#3', 'gn', ['pommes', 'pomme']),
      error(5, 11, '#2', 'ppas', ['mangé']),
      error(3, 11, '#4', 'other-kind', ['x']),
      error(30, 40, '#5', 'gn', ['y']),
      error(2, 2, '#6', 'gn', ['z']),
    ]);
    expect(r.corrected).toBe('il a mangé des pommes');
    expect(r.corrections.map((c) => [c.type, c.original, c.suggestions])).toEqual([
      ['tense', 'manger', undefined],
      ['agreement', 'pomme', ['pommes', 'pomme']],
    ]);
  });

  it('When an error has no suggestion, Then it is reported and the text left as written', () => {
    const r = applyGrammarErrors('Quoi que tu fasses.', [error(0, 8, '#7', 'conf', [])]);
    expect(r.corrected).toBe('Quoi que tu fasses.');
    expect(r.corrections).toEqual([
      { type: 'other', original: 'Quoi que', suggestion: 'Quoi que', message: '#7 says so' },
    ]);
  });
});
