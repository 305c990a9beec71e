import { z } from 'zod';

export const ClaimAchievementParams = z
  .object({
    achievementId: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9_]+$/, 'Achievement ids are lower-case letters, digits and underscores'),
  })
  .strict();

const AchievementView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.enum(['streak', 'cards_learned', 'reviews']),
    xp: z.number().int(),
    progress: z.object({ current: z.number().int(), target: z.number().int(), percent: z.number().int() }),
    unlocked: z.boolean(),
    unlockedAt: z.string().nullable(),
    claimed: z.boolean(),
    claimedAt: z.string().nullable(),
  })
  .meta({ id: 'Achievement' });

export const AchievementBoardResponse = z.object({
  unlocked: z.array(AchievementView),
  locked: z.array(AchievementView),
  recent: z.array(AchievementView),
});

export const ClaimAchievementResponse = z.object({
  achievementId: z.string(),
  xpEarned: z.number().int(),
  totalXp: z.number().int(),
  level: z.number().int(),
  newLevel: z.number().int().optional(),
});
