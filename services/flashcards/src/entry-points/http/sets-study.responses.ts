import { z } from 'zod';
import { CatalogueCard, Pagination } from './card.responses';

// The `data` of /api/flashcard-sets (Group C) and /api/study (Group B); sent with sendData.
const count = z.number().int().min(0);

export const SetStatsSchema = z
  .object({
    totalCards: count,
    masteredCards: count,
    dueCards: count,
    progress: z.number().min(0).max(100).meta({ description: 'Average mastery of the set’s cards' }),
  })
  .meta({ id: 'SetStats' });

export const CardSetSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    color: z.string().nullable(),
    tags: z.array(z.string()),
    isPublic: z.boolean(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .meta({ id: 'FlashcardSet' });
export type CardSetSchema = z.infer<typeof CardSetSchema>;

export const SetList = z.object({
  sets: z.array(
    CardSetSchema.extend({ cardCount: count, progress: z.number().min(0).max(100), stats: SetStatsSchema }),
  ),
  pagination: Pagination,
});

export const SetCreated = z.object({
  set: CardSetSchema.extend({ cardCount: count, progress: z.number() }),
});

export const SetWithCards = z.object({
  set: CardSetSchema,
  cards: z
    .array(CatalogueCard)
    .meta({ description: 'The first 100; all of them: GET /api/flashcards?setId=' }),
  stats: SetStatsSchema,
});

export const SetUpdated = z.object({ set: CardSetSchema });

export const SetDeleted = z.object({
  message: z.string(),
  deletedCount: count.meta({ description: 'Cards deleted with the set' }),
});

export const StudyTest = z
  .object({
    id: z.string(),
    flashcardId: z.string(),
    testType: z.string(),
    isCorrect: z.boolean(),
    studyDate: z.string().meta({ description: 'UTC day, YYYY-MM-DD' }),
    completedAt: z.date(),
  })
  .meta({ id: 'StudyTest' });
export type StudyTest = z.infer<typeof StudyTest>;

export const CompletedTests = z.object({ studyDate: z.string(), tests: z.array(StudyTest), count });
