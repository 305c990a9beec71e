import { z } from 'zod';
import { CEFR_LEVELS } from '../../domain/cards/cefr';
import { QUESTION_TYPES } from '../../domain/questions/question-types';

// The `data` of the card responses. The presenters and handlers are typed with these schemas
// (z.infer), so the OpenAPI document built from them cannot drift from what is sent. Dates are
// Date objects here and ISO 8601 strings on the wire (z.date() is documented as date-time).
const date = z.date();
const text = z.string().nullable();
const count = z.number().int().min(0);

/** Group B public fields of a card (lists). */
export const FlashcardPublic = z
  .object({
    id: z.string(),
    word: z.string(),
    translation: z.string(),
    definition: z.string(),
    partOfSpeech: text,
    pronunciation: text,
    example: text,
    exampleTranslation: text,
    synonyms: z.array(z.string()),
    masteryLevel: z.number().int().min(0).max(100),
    timesReviewed: count,
    isFavorite: z.boolean(),
    nextReviewDate: date,
    difficultyLevel: text.meta({ description: 'CEFR level A1…C2, or null' }),
    createdAt: date,
    updatedAt: date,
  })
  .meta({ id: 'Flashcard' });
export type FlashcardPublic = z.infer<typeof FlashcardPublic>;

/** Group B full card (single reads and writes): public fields plus the scheduling state. */
export const FlashcardFull = FlashcardPublic.extend({
  easinessFactor: z.number(),
  repetitions: count,
  intervalDays: count,
  timesCorrect: count,
  lastReviewedAt: date.nullable(),
  filledQuestionText: text,
}).meta({ id: 'FlashcardFull' });
export type FlashcardFull = z.infer<typeof FlashcardFull>;

/** Group C card. */
export const CatalogueCard = z
  .object({
    id: z.string(),
    setId: text,
    word: z.string(),
    translation: z.string(),
    partOfSpeech: text,
    pronunciation: text,
    definition: z.string(),
    exampleSentence: text,
    exampleTranslation: text,
    synonyms: z.array(z.string()),
    tags: z.array(z.string()),
    difficulty: text.meta({ description: 'beginner, intermediate or advanced, or null' }),
    difficultyLevel: text,
    isFavorite: z.boolean(),
    masteryLevel: z.number().int().min(0).max(100),
    timesReviewed: count,
    timesCorrect: count,
    nextReviewDate: date,
    lastReviewedAt: date.nullable(),
    createdAt: date,
    updatedAt: date,
  })
  .meta({ id: 'CatalogueCard' });
export type CatalogueCard = z.infer<typeof CatalogueCard>;

export const Pagination = z
  .object({ page: z.number().int().min(1), limit: z.number().int().min(1), total: count, totalPages: count })
  .meta({ id: 'Pagination' });

/**
 * GET /api/flashcards, both faces: Group B's `flashcards` and `count`, Group C's `cards` and
 * `pagination`, the same cards in each group's shape.
 */
export const FlashcardList = z
  .object({
    flashcards: z.array(FlashcardPublic),
    count: count.meta({ description: 'Number of cards in this answer (Group B)' }),
    cards: z.array(CatalogueCard),
    pagination: Pagination,
  })
  .meta({ id: 'FlashcardList' });
export type FlashcardList = z.infer<typeof FlashcardList>;

/**
 * A card written through /api/flashcards (PUT), both faces: the Group B full card, with the Group C
 * card under `card`.
 */
export const FlashcardWritten = FlashcardFull.extend({ card: CatalogueCard }).meta({
  id: 'FlashcardWritten',
});
export type FlashcardWritten = z.infer<typeof FlashcardWritten>;

/** Group C single-card answers (POST with setId). */
export const CatalogueCardResult = z.object({ card: CatalogueCard });

export const ReviewStatusSchema = z
  .object({
    status: z.enum(['overdue', 'due_today', 'upcoming']),
    overdueDays: count,
    daysUntilDue: count,
    isOverdue: z.boolean(),
    isDueToday: z.boolean(),
    label: z.string(),
  })
  .meta({ id: 'ReviewStatus' });

export const DueFlashcard = FlashcardFull.extend({ reviewStatus: ReviewStatusSchema }).meta({
  id: 'DueFlashcard',
});
export const DueList = z.object({ flashcards: z.array(DueFlashcard), count });

const cefr = z.enum(CEFR_LEVELS);
export const NextReview = z
  .object({
    flashcard: FlashcardFull,
    nextReviewDate: date,
    isDue: z.boolean(),
    level: cefr.nullable(),
    levelNumber: z.number().int().nullable(),
    levelName: z.string().nullable(),
    masteryLevel: z.number().int(),
  })
  .extend(ReviewStatusSchema.shape)
  .nullable()
  .meta({ description: 'null (with a message) when the user has no card to review' });
export type NextReview = z.infer<typeof NextReview>;

export const FavoriteResult = z.object({ isFavorite: z.boolean() });

export const ReviewResult = z.object({
  flashcard: FlashcardFull,
  wasCorrect: z.boolean(),
  nextReviewDate: date,
  intervalDays: count,
  repetitions: count,
  easinessFactor: z.number(),
  masteryLevel: z.number().int(),
});
export type ReviewResult = z.infer<typeof ReviewResult>;

const questionType = z.enum(QUESTION_TYPES);
export const ReviewModeDecision = z.object({
  questionType,
  situation: z.enum(['a1_learner', 'word_above_level', 'word_at_level', 'word_below_level']),
  availableTypes: z.array(questionType),
  learnerLevel: cefr,
  wordLevel: cefr.nullable(),
});

export const QuestionResult = z.object({
  question: z.object({
    flashcardId: z.string(),
    questionType,
    prompt: z.string(),
    questionText: z.string(),
    options: z.array(z.string()).optional(),
    correctAnswer: z.string(),
    hint: z.string().optional(),
  }),
  situation: ReviewModeDecision.shape.situation.optional(),
  availableTypes: z.array(questionType).optional(),
});
export type QuestionResult = z.infer<typeof QuestionResult>;

export const BatchResult = z.object({
  operation: z.enum(['create', 'update', 'delete', 'move']),
  success: count,
  failed: count,
  errors: z.array(
    z.object({
      index: count,
      cardId: z.string().optional(),
      code: z.string(),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  ),
  cards: z.array(CatalogueCard).optional(),
});
export type BatchResult = z.infer<typeof BatchResult>;
