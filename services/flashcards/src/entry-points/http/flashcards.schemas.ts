import { z } from 'zod';
import { QUESTION_TYPES } from '../../domain/questions/question-types';
import {
  cefr,
  definition,
  difficulty,
  guid,
  longText,
  masteryLevel,
  partOfSpeech,
  pronunciation,
  queryBool,
  queryInt,
  reviewedCount,
  synonyms,
  tagsBody,
  translation,
  word,
} from './common.schemas';

/** Group B: path id. */
export const CardIdParams = z.object({ id: guid });

/** Group B: GET /api/flashcards. */
export const ListFlashcardsQuery = z
  .object({ search: z.string().max(200).optional(), favoritesOnly: queryBool.default(false) })
  .strict();

/** Group B: POST /api/flashcards and PUT /api/flashcards/{id} (same shape). */
export const FlashcardBody = z
  .object({
    word,
    translation,
    definition: definition.min(1, 'is required'),
    partOfSpeech: partOfSpeech.optional(),
    pronunciation: pronunciation.optional(),
    example: longText.optional(),
    exampleTranslation: longText.optional(),
    synonyms: synonyms.optional(),
    difficultyLevel: cefr.optional(),
    masteryLevel: masteryLevel.optional(),
  })
  .strict();

/**
 * PUT /api/flashcards/{id}, both faces: any subset of the Group B and Group C card fields; what is
 * present is validated, what is absent is left as it is. `example` (Group B) and `exampleSentence`
 * (Group C) are the same field; a body gives at most one of them. setId (Group C) moves the card.
 */
export const FlashcardUpdateBody = z
  .object({
    word,
    translation,
    definition,
    partOfSpeech,
    pronunciation,
    example: longText,
    exampleSentence: longText,
    exampleTranslation: longText,
    synonyms,
    difficultyLevel: cefr,
    masteryLevel,
    setId: guid,
    tags: tagsBody,
    difficulty,
  })
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required')
  .refine((v) => v.example === undefined || v.exampleSentence === undefined, {
    message: 'give example or exampleSentence, not both',
    path: ['exampleSentence'],
  });
export type FlashcardUpdateBody = z.infer<typeof FlashcardUpdateBody>;

/** Group B: GET /api/flashcards/due. */
export const DueQuery = z
  .object({
    limit: queryInt(1, 100).default(20),
    includeToday: queryBool.default(true),
    includeOverdue: queryBool.default(true),
    favoritesOnly: queryBool.default(false),
  })
  .strict();

/** Group B: POST /api/flashcards/{id}/review. */
export const ReviewBody = z
  .object({
    confidence: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    timesReviewed: reviewedCount.optional(),
  })
  .strict();

/** Group B: POST /api/flashcards/{id}/optimal-review-mode. */
export const OptimalReviewModeBody = z.object({ learnerLevel: cefr }).strict();

/** Group B: POST /api/flashcards/{id}/question. */
export const QuestionBody = z
  .object({ questionType: z.enum(QUESTION_TYPES).optional(), learnerLevel: cefr.optional() })
  .strict();
