import type { ScheduleState } from '../scheduling/schedule-state';
import { type CefrLevel, type Difficulty, difficultyOfLevel } from './cefr';

/** The content fields a client may set on a card (both API faces map onto these). */
export interface CardContent {
  word: string;
  translation: string;
  definition: string;
  partOfSpeech: string | null;
  pronunciation: string | null;
  example: string | null;
  exampleTranslation: string | null;
  synonyms: string[];
  tags: string[];
  difficultyLevel: CefrLevel | null;
  difficulty: Difficulty | null;
  masteryLevel: number;
}

export interface NewCardFields extends Omit<CardContent, 'synonyms'>, ScheduleState {
  id: string;
  userId: string;
  setId: string | null;
  synonyms: string;
  isFavorite: boolean;
  isArchived: boolean;
  filledQuestionText: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Synonyms are kept as JSON text (spec) and shown as an array; bad stored text shows as []. */
export const synonymsToText = (synonyms: string[]) => JSON.stringify(synonyms);
export function synonymsFromText(text: string | null | undefined): string[] {
  try {
    const v: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** A fresh card: due at once (a new word is studied right away), default SRS state. Pure. */
export function newCard(
  content: Partial<CardContent> & Pick<CardContent, 'word' | 'translation'>,
  ids: { id: string; userId: string; setId: string | null },
  now: Date,
): NewCardFields {
  const difficultyLevel = content.difficultyLevel ?? null;
  return {
    ...ids,
    word: content.word,
    translation: content.translation,
    definition: content.definition ?? '',
    partOfSpeech: content.partOfSpeech ?? null,
    pronunciation: content.pronunciation ?? null,
    example: content.example ?? null,
    exampleTranslation: content.exampleTranslation ?? null,
    synonyms: synonymsToText(content.synonyms ?? []),
    tags: content.tags ?? [],
    difficultyLevel,
    difficulty: content.difficulty ?? (difficultyLevel ? difficultyOfLevel(difficultyLevel) : null),
    masteryLevel: content.masteryLevel ?? 0,
    timesReviewed: 0,
    timesCorrect: 0,
    isFavorite: false,
    isArchived: false,
    easinessFactor: 2.5,
    repetitions: 0,
    intervalDays: 1,
    lastReviewedAt: null,
    nextReviewDate: now,
    fsrs: null,
    filledQuestionText: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The stored form of a content change (synonyms to JSON text, derived difficulty). Pure. */
export function contentUpdate(change: Partial<CardContent>): Record<string, unknown> {
  const { synonyms, ...rest } = change;
  const out: Record<string, unknown> = { ...rest };
  if (synonyms !== undefined) out.synonyms = synonymsToText(synonyms);
  if (change.difficultyLevel && change.difficulty === undefined)
    out.difficulty = difficultyOfLevel(change.difficultyLevel);
  // a changed word or example makes the stored fill-in-the-blank text stale
  if (change.word !== undefined || change.example !== undefined) out.filledQuestionText = null;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}
