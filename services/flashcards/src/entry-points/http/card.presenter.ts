import type { Card } from '../../data-access/card.repository';
import { synonymsFromText } from '../../domain/cards/card-fields';

/** Group B public fields of a Flashcard (lists). */
export function flashcardPublic(card: Card) {
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
export function flashcardFull(card: Card) {
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

/** Group C card. */
export function catalogueCard(card: Card) {
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
