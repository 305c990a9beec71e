import { z } from 'zod';
import { CONTENT_POS, partOfSpeech, type PartOfSpeech, tokenize } from './language/nlp';
import { fleschKincaidGrade, fleschReadingEase, round } from './language/text-metrics';
import {
  CEFR_LEVELS,
  type CefrLevel,
  type Difficulty,
  difficultyOfLevel,
  levelIndex,
} from './language/word-frequency';
import { warmUpSpellingChoice } from './language/spelling-choice';
import { LANGUAGE_NAMES } from './language/supported-languages';
import { profileWord } from './language/word-profile';

export const MAX_TEXT_LENGTH = 20_000;

export const AnalyzeTextInput = z.object({
  text: z
    .string()
    .max(MAX_TEXT_LENGTH, `at most ${MAX_TEXT_LENGTH} characters`)
    .refine((t) => /\p{L}/u.test(t), 'must contain at least one word'),
});
export type AnalyzeTextInput = z.infer<typeof AnalyzeTextInput>;

export interface SuggestedWord {
  word: string;
  partOfSpeech: PartOfSpeech;
  cefrLevel: CefrLevel;
  occurrences: number;
}

export interface TextAnalysis {
  difficulty: Difficulty;
  cefrLevel: CefrLevel;
  wordCount: number;
  uniqueWords: number;
  sentenceCount: number;
  averageSentenceLength: number;
  readabilityScore: number;
  gradeLevel: number;
  suggestedWords: SuggestedWord[];
}

const MAX_SUGGESTED = 20;

/** Readability bands of Flesch's own table, mapped onto CEFR levels. */
function levelFromReadability(score: number): number {
  if (score >= 80) return 0;
  if (score >= 70) return 1;
  if (score >= 60) return 2;
  if (score >= 50) return 3;
  if (score >= 30) return 4;
  return 5;
}

/**
 * Difficulty of an English text: the mean of a lexical level (the 90th-percentile CEFR estimate of
 * its content words) and a readability level (Flesch Reading Ease bands). Suggested words are the
 * content words at or above the text's level, rarest first: what a learner would not yet know.
 */
export function analyzeText(input: AnalyzeTextInput): TextAnalysis {
  const { sentences, tokens } = tokenize(input.text);
  const words = tokens.map((t) => t.normal);
  const sentenceCount = Math.max(1, sentences.length);
  const unique = new Set(words);

  const content: { lemma: string; pos: PartOfSpeech; level: CefrLevel; rank: number }[] = [];
  for (const t of tokens) {
    const pos = partOfSpeech(t.tags);
    if (!CONTENT_POS.has(pos) || t.tags.includes('ProperNoun')) continue;
    const p = profileWord(t.normal, pos);
    content.push({ lemma: p.lemma, pos, level: p.cefrLevel, rank: p.rank ?? Number.MAX_SAFE_INTEGER });
  }
  const levels = content.map((c) => levelIndex(c.level)).sort((a, b) => a - b);
  const lexical = levels.length === 0 ? 0 : levels[Math.floor(0.9 * (levels.length - 1))]!;
  const readability = fleschReadingEase(words, sentenceCount);
  const combined = Math.round((lexical + levelFromReadability(readability)) / 2);
  const cefrLevel = CEFR_LEVELS[combined]!;

  const byLemma = new Map<string, SuggestedWord & { rank: number }>();
  for (const c of content) {
    if (levelIndex(c.level) < Math.max(combined, 2)) continue; // A-level words are not worth a card
    const seen = byLemma.get(c.lemma);
    if (seen) seen.occurrences++;
    else
      byLemma.set(c.lemma, {
        word: c.lemma,
        partOfSpeech: c.pos,
        cefrLevel: c.level,
        occurrences: 1,
        rank: c.rank,
      });
  }
  const suggestedWords = [...byLemma.values()]
    .sort((a, b) => b.rank - a.rank || a.word.localeCompare(b.word))
    .slice(0, MAX_SUGGESTED)
    .map(({ rank: _rank, ...w }) => w);

  return {
    difficulty: difficultyOfLevel(cefrLevel),
    cefrLevel,
    wordCount: words.length,
    uniqueWords: unique.size,
    sentenceCount: sentences.length,
    averageSentenceLength: round(words.length / sentenceCount),
    readabilityScore: round(Math.min(100, Math.max(0, readability))),
    gradeLevel: round(Math.max(0, fleschKincaidGrade(words, sentenceCount))),
    suggestedWords,
  };
}

/**
 * Loads the tagger, frequency lists and pronunciation dictionary (~2 s) and keys the frequent forms
 * the spelling choice scans, before the first request.
 */
export function warmUpLanguageData(): void {
  analyzeText({ text: 'The quick brown fox jumps over the lazy dog.' });
  warmUpSpellingChoice(Object.keys(LANGUAGE_NAMES));
}
