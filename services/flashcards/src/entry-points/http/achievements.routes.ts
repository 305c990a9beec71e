import type { Express } from 'express';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { RouteDoc } from '@lingua/openapi';
import { achievementRepository } from '../../data-access/achievement.repository';
import type { LearnerProgress } from '../../domain/achievements/achievement-rules';
import type { AchievementDeps } from '../../domain/achievements/achievement-store';
import { claimAchievement } from '../../domain/achievements/claim-achievement.use-case';
import { evaluateAchievements } from '../../domain/achievements/evaluate-achievements.use-case';
import { getAchievements } from '../../domain/achievements/get-achievements.use-case';
import { reviewModel } from '../../data-access/review.model';
import {
  AchievementBoardResponse,
  ClaimAchievementParams,
  ClaimAchievementResponse,
} from './achievements.schemas';
import type { FlashcardsDeps } from './deps';

export const ACHIEVEMENT_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/achievements',
    summary: 'Achievements: unlocked, locked (with progress) and recent',
    tags: ['achievements'],
    auth: 'access',
    response: AchievementBoardResponse,
  },
  {
    method: 'post',
    path: '/api/achievements/:achievementId/claim',
    summary: "Claim an unlocked achievement's XP (once)",
    tags: ['achievements'],
    auth: 'access',
    params: ClaimAchievementParams,
    response: ClaimAchievementResponse,
    errors: { 404: 'Unknown achievement', 409: 'Not unlocked yet, or already claimed' },
  },
];

/** The achievement use cases' dependencies, over the learning data of the same service. */
export function achievementDeps(deps: FlashcardsDeps): AchievementDeps {
  const store = achievementRepository(deps.connection);
  const reviews = reviewModel(deps.connection);
  return {
    store,
    async progressOf(userId: string): Promise<LearnerProgress> {
      const [profile, totalReviews, cardsLearned] = await Promise.all([
        deps.profiles.get(userId),
        reviews.countDocuments({ userId }),
        reviews.countDocuments({ userId, firstReview: true }),
      ]);
      return {
        streakDays: Math.max(profile.longestStreak, profile.currentStreak),
        totalReviews,
        cardsLearned,
      };
    },
    studyXpOf: async (userId) => (await deps.profiles.get(userId)).xp,
    now: () => deps.clock.now(),
    kickOutbox: () => deps.outbox.kick(),
  };
}

/** GET /api/achievements and the claim; also installs the achievement hook called after reviews. */
export function registerAchievementRoutes(app: Express, deps: FlashcardsDeps): void {
  const achievements = achievementDeps(deps);
  const store = achievementRepository(deps.connection);

  deps.achievements = { onActivity: (userId) => evaluateAchievements(userId, achievements) };
  const previousErase = deps.eraseUserExtras;
  deps.eraseUserExtras = async (userId) => {
    await previousErase?.(userId);
    await store.deleteAllOfUser(userId);
  };

  app.get('/api/achievements', deps.requireUser, async (_req, res) => {
    const userId = deps.userIdOf(res);
    const onEvaluationError = (err: unknown) =>
      deps.logger.warn({ err, userId }, 'achievement evaluation failed');
    sendSuccess(res, await getAchievements(userId, { ...achievements, onEvaluationError }));
  });

  app.post('/api/achievements/:achievementId/claim', deps.requireUser, async (req, res) => {
    const { achievementId } = parseInput(ClaimAchievementParams, req.params);
    sendSuccess(res, await claimAchievement(deps.userIdOf(res), achievementId, achievements));
  });

  for (const doc of ACHIEVEMENT_ROUTE_DOCS) deps.docs?.route(doc);
}
