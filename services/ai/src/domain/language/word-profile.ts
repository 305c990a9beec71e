import { type CefrLevel, cefrFromRank, frequencyRank } from './word-frequency';
import { lemma, type PartOfSpeech } from './nlp';

export interface WordProfile {
  lemma: string;
  /** best (lowest) SUBTLEX rank of the word or its dictionary form */
  rank: number | undefined;
  cefrLevel: CefrLevel;
}

// Lemmatising re-runs the tagger, so profiles are memoised; the vocabulary of real text is small.
const memo = new Map<string, WordProfile>();
const MEMO_LIMIT = 50_000;

/** Dictionary form, frequency rank and estimated CEFR level of one word as used in text. */
export function profileWord(normal: string, pos: PartOfSpeech): WordProfile {
  const key = `${pos}:${normal}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const base = lemma(normal, pos);
  const ranks = [frequencyRank(normal), frequencyRank(base)].filter((r): r is number => r !== undefined);
  const rank = ranks.length > 0 ? Math.min(...ranks) : undefined;
  const profile = { lemma: base, rank, cefrLevel: cefrFromRank(rank) };
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, profile);
  return profile;
}
