import { z } from 'zod';
import { inflections, partOfSpeech, tagsOfWord } from './language/nlp';
import type { CefrLevel } from './language/word-frequency';
import { profileWord } from './language/word-profile';

const Language = z
  .string()
  .transform((l) => l || 'en')
  .refine((l) => l === 'en', 'only English ("en") is supported');
const Word = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  .regex(/^[\p{L}][\p{L}\p{M}'’-]*$/u, 'a single word');

export const WordInput = z.object({ word: Word, language: Language });
export const FillBlankInput = z.object({
  sentence: z.string().trim().min(1, 'must not be empty').max(1_000, 'at most 1000 characters'),
  word: Word,
  language: Language,
});

/** Estimated CEFR level of a word (frequency bands: always an estimate, see word-frequency.ts). */
export function getWordLevel(input: z.output<typeof WordInput>): {
  cefrLevel: CefrLevel;
  estimated: boolean;
} {
  const { word } = input;
  const normal = word.toLowerCase();
  const { cefrLevel } = profileWord(normal, partOfSpeech(tagsOfWord(normal)));
  return { cefrLevel, estimated: true };
}

/** Inflected forms of a word (the word itself first). */
export function getInflections(input: z.output<typeof WordInput>): string[] {
  const { word } = input;
  return inflections(word);
}

export const BLANK = '_____';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces the word, in whichever inflected form the sentence uses ("went" for "go"), by a blank.
 * Only the first occurrence is blanked: one gap per exercise.
 */
export function fillBlank(input: z.output<typeof FillBlankInput>): {
  text: string;
  blankedForm: string;
  found: boolean;
} {
  const { sentence, word } = input;
  const forms = inflections(word).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?<![\\p{L}'’-])(${forms.map(escape).join('|')})(?![\\p{L}'’-])`, 'iu');
  const match = pattern.exec(sentence);
  if (!match) return { text: sentence, blankedForm: '', found: false };
  const text = sentence.slice(0, match.index) + BLANK + sentence.slice(match.index + match[0].length);
  return { text, blankedForm: match[0], found: true };
}
