import { syllableCount } from './pronunciation';

/**
 * Flesch Reading Ease (0 very hard … 100 very easy; raw values can leave that range) and
 * Flesch-Kincaid grade. Same formulas as textstat / text-readability; syllables come from the CMU
 * dictionary rather than a spelling heuristic.
 */
export function fleschReadingEase(words: string[], sentenceCount: number): number {
  if (words.length === 0 || sentenceCount === 0) return 0;
  const syllables = words.reduce((n, w) => n + syllableCount(w), 0);
  return 206.835 - 1.015 * (words.length / sentenceCount) - 84.6 * (syllables / words.length);
}

export function fleschKincaidGrade(words: string[], sentenceCount: number): number {
  if (words.length === 0 || sentenceCount === 0) return 0;
  const syllables = words.reduce((n, w) => n + syllableCount(w), 0);
  return 0.39 * (words.length / sentenceCount) + 11.8 * (syllables / words.length) - 15.59;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
