import { z } from 'zod';
import { ALGORITHMS } from '../../domain/scheduling/schedule-state';
import { guid, queryInt, reviewedCount } from './common.schemas';

export const LearningDueQuery = z
  .object({ setId: guid.optional(), limit: queryInt(1, 100).default(20) })
  .strict();

export const LearningReviewBody = z
  .object({
    cardId: guid,
    rating: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]),
    responseTime: z.number().int().min(0).max(3_600_000).optional(),
    mode: z.enum(['flip', 'quiz', 'typing']).optional(),
    sessionId: guid.optional(),
    timesReviewed: reviewedCount.optional(),
  })
  .strict();

export const StatsQuery = z
  .object({
    period: z.enum(['today', 'week', 'month', 'year', 'all']).default('week'),
    setId: guid.optional(),
  })
  .strict();

export const SessionStartBody = z
  .object({
    mode: z.enum(['review', 'learn', 'cram']),
    setId: guid.optional(),
    limit: z.number().int().min(1).max(100).optional(),
  })
  .strict();

export const SessionEndBody = z.object({ sessionId: guid }).strict();

export const SettingsBody = z
  .object({
    algorithm: z.enum(ALGORITHMS).optional(),
    dailyGoal: z.number().int().min(1).max(1000).optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');
