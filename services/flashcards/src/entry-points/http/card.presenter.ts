import type { Card } from '../../domain/ports';
import { synonymsFromText } from '../../domain/cards/card-fields';
import { dayDiffIn, reviewStatusIn, utcDayDiff } from '../../domain/cards/review-status';
import type { CatalogueCard, FlashcardFull, FlashcardPublic } from './card.responses';

/** Group B public fields of a Flashcard (lists). */
export function flashcardPublic(card: Card): FlashcardPublic {
  return {
    id: card.id,
    word: card.word,
    translation: card.translation,
    definition: card.definition,
    partOfSpeech: card.partOfSpeech,
    pronunciation: card.pronunciation,
    example: card.example,
    exampleTranslation: card.exampleTranslation,
    synonyms: synonymsFromText(card.synonyms),
    masteryLevel: card.masteryLevel,
    timesReviewed: card.timesReviewed,
    isFavorite: card.isFavorite,
    nextReviewDate: card.nextReviewDate,
    difficultyLevel: card.difficultyLevel,
    createdAt: card.createdAt,
    updatedAt: card.updatedAt,
  };
}

/** Group B full Flashcard (single reads and writes): public fields plus the scheduling state. */
export function flashcardFull(card: Card): FlashcardFull {
  return {
    ...flashcardPublic(card),
    easinessFactor: card.easinessFactor,
    repetitions: card.repetitions,
    intervalDays: card.intervalDays,
    timesCorrect: card.timesCorrect,
    lastReviewedAt: card.lastReviewedAt,
    filledQuestionText: card.filledQuestionText,
  };
}

const fullJsonOfShared = new WeakMap<Card, string>();

/**
 * flashcardFull as JSON. Remembered for shared, frozen cards (the due read model's decoded cache):
 * they cannot change, so a hot due list is rendered once, not on every read.
 */
export function flashcardFullJson(card: Card): string {
  if (!Object.isFrozen(card)) return JSON.stringify(flashcardFull(card));
  let json = fullJsonOfShared.get(card);
  if (json === undefined) fullJsonOfShared.set(card, (json = JSON.stringify(flashcardFull(card))));
  return json;
}

const statusJsonByDays = new Map<number, string>();

/** The review status of a card due `days` UTC days from today, as JSON (a handful of distinct values). */
function reviewStatusJson(days: number): string {
  let json = statusJsonByDays.get(days);
  if (json === undefined) {
    if (statusJsonByDays.size >= 10_000) statusJsonByDays.clear();
    statusJsonByDays.set(days, (json = JSON.stringify(reviewStatusIn(days))));
  }
  return json;
}

/**
 * A Group B due card as JSON: the same text as
 * JSON.stringify({...flashcardFull(card), reviewStatus: reviewStatus(card.nextReviewDate, now)}).
 */
export function dueCardJson(card: Card, now: Date, zone?: string): string {
  // "due today" on the user's calendar (the zone the due window was cut in)
  const status = reviewStatusJson(
    zone ? dayDiffIn(now, card.nextReviewDate, zone) : utcDayDiff(now, card.nextReviewDate),
  );
  return `${flashcardFullJson(card).slice(0, -1)},"reviewStatus":${status}}`;
}

/** Group C card. */
export function catalogueCard(card: Card): CatalogueCard {
  return {
    id: card.id,
    setId: card.setId,
    word: card.word,
    translation: card.translation,
    partOfSpeech: card.partOfSpeech,
    pronunciation: card.pronunciation,
    definition: card.definition,
    exampleSentence: card.example,
    exampleTranslation: card.exampleTranslation,
    synonyms: synonymsFromText(card.synonyms),
    tags: card.tags,
    difficulty: card.difficulty,
    difficultyLevel: card.difficultyLevel,
    isFavorite: card.isFavorite,
    masteryLevel: card.masteryLevel,
    timesReviewed: card.timesReviewed,
    timesCorrect: card.timesCorrect,
    nextReviewDate: card.nextReviewDate,
    lastReviewedAt: card.lastReviewedAt,
    createdAt: card.createdAt,
    updatedAt: card.updatedAt,
  };
}

/** Both faces of a written card: the Group B full card with the Group C card under `card`. */
export function flashcardWritten(card: Card): FlashcardFull & { card: CatalogueCard } {
  return { ...flashcardFull(card), card: catalogueCard(card) };
}

/** Group C learning record of a card (learning/due). */
export function learningRecord(card: Card) {
  return {
    easeFactor: card.easinessFactor,
    interval: card.intervalDays,
    repetitions: card.repetitions,
    masteryLevel: card.masteryLevel,
    timesReviewed: card.timesReviewed,
    timesCorrect: card.timesCorrect,
    lastReviewedAt: card.lastReviewedAt,
    nextReviewDate: card.nextReviewDate,
    ...(card.fsrs && { fsrs: card.fsrs }),
  };
}
