import { z } from 'zod';
import { ALGORITHMS } from '../../domain/scheduling/schedule-state';
import { CatalogueCard } from './card.responses';

// The `data` of the Group C /api/learning answers; the handlers send them with sendData, so the
// document and the code share these types.
const count = z.number().int().min(0);
const algorithm = z.enum(ALGORITHMS);

export const LearningRecord = z
  .object({
    easeFactor: z.number(),
    interval: count,
    repetitions: count,
    masteryLevel: z.number().int(),
    timesReviewed: count,
    timesCorrect: count,
    lastReviewedAt: z.date().nullable(),
    nextReviewDate: z.date(),
    fsrs: z
      .object({
        stability: z.number(),
        difficulty: z.number(),
        scheduledDays: z.number(),
        learningSteps: z.number(),
        reps: z.number(),
        lapses: z.number(),
        state: z.number(),
      })
      .optional()
      .meta({ description: 'FSRS memory state, for users who schedule with FSRS' }),
  })
  .meta({ id: 'LearningRecord' });
export type LearningRecord = z.infer<typeof LearningRecord>;

export const CardWithRecord = CatalogueCard.extend({ learningRecord: LearningRecord }).meta({
  id: 'CardWithRecord',
});

export const LearningDue = z.object({ cards: z.array(CardWithRecord), totalDue: count });

export const LearningReviewResult = z.object({
  cardId: z.string(),
  correct: z.boolean(),
  nextReviewDate: z.date(),
  interval: count,
  easeFactor: z.number(),
  masteryLevel: z.number().int(),
  algorithm,
  achievements: z.array(z.string()).meta({ description: 'Achievements unlocked by this review' }),
});

export const LearningStatsResult = z.object({
  period: z.enum(['today', 'week', 'month', 'year', 'all']),
  from: z.date().nullable(),
  to: z.date(),
  cardsReviewed: count,
  reviews: count,
  cardsLearned: count,
  cardsMastered: count,
  studyTime: count.meta({ description: 'Minutes' }),
  accuracy: z.number().int().min(0).max(100),
  streak: count,
  longestStreak: count,
  dailyGoal: count,
  dailyGoalProgress: z.number().int().min(0).max(100),
  chart: z.object({ dates: z.array(z.string()), values: z.array(count) }),
});

export const SessionStarted = z.object({
  sessionId: z.string(),
  mode: z.enum(['review', 'learn', 'cram']),
  startedAt: z.date(),
  cards: z.array(CardWithRecord),
});

export const SessionEnded = z.object({
  sessionId: z.string(),
  duration: count.meta({ description: 'Seconds' }),
  cardsStudied: count,
  accuracy: z.number().int().min(0).max(100),
  xpEarned: count,
  achievements: z.array(z.string()),
});

export const LearningSettings = z.object({ algorithm, dailyGoal: count });
