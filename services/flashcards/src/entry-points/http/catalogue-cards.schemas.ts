import { z } from 'zod';
import {
  definition,
  difficulty,
  guid,
  limit,
  longText,
  page,
  partOfSpeech,
  pronunciation,
  queryBool,
  synonyms,
  tagsBody,
  tagsQuery,
  translation,
  word,
} from './common.schemas';

/** Group C: GET /api/flashcards. */
export const CatalogueListQuery = z
  .object({
    setId: guid.optional(),
    search: z.string().max(200).optional(),
    tags: tagsQuery.optional(),
    difficulty: difficulty.optional(),
    mastered: queryBool.optional(),
    favorite: queryBool.optional(),
    dueForReview: queryBool.optional(),
    page,
    limit,
  })
  .strict();

const cardFields = {
  word,
  translation,
  partOfSpeech: partOfSpeech.optional(),
  pronunciation: pronunciation.optional(),
  definition: definition.optional(),
  exampleSentence: longText.optional(),
  exampleTranslation: longText.optional(),
  synonyms: synonyms.optional(),
  tags: tagsBody.optional(),
  difficulty: difficulty.optional(),
};

/** Group C: POST /api/flashcards. */
export const CatalogueCreateBody = z.object({ setId: guid, ...cardFields }).strict();

/** Group C: PUT /api/flashcards/:cardId (a changed setId moves the card). */
export const CatalogueUpdateBody = z
  .object({ setId: guid, ...cardFields })
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

/** Cards per batch request. */
export const MAX_BATCH = 100;
const cardIds = z.array(guid).min(1).max(MAX_BATCH);

/** Group C: POST /api/flashcards/batch. */
export const BatchBody = z.discriminatedUnion('operation', [
  z
    .object({
      operation: z.literal('create'),
      targetSetId: guid.optional(),
      // items are validated one by one, so one bad item fails alone
      data: z.array(z.unknown()).min(1).max(MAX_BATCH),
    })
    .strict(),
  z
    .object({
      operation: z.literal('update'),
      cardIds,
      data: z
        .object(cardFields)
        .omit({ word: true })
        .partial()
        .strict()
        .refine((v) => Object.keys(v).length > 0, 'at least one field is required'),
    })
    .strict(),
  z.object({ operation: z.literal('delete'), cardIds }).strict(),
  z.object({ operation: z.literal('move'), cardIds, targetSetId: guid }).strict(),
]);

/** One item of a batch create. */
export const BatchCreateItem = z.object({ setId: guid.optional(), ...cardFields }).strict();
