import type { Express } from 'express';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import { claimAchievement } from '../../domain/achievements/claim-achievement.use-case';
import { getAchievements } from '../../domain/achievements/get-achievements.use-case';
import {
  AchievementBoardResponse,
  ClaimAchievementParams,
  ClaimAchievementResponse,
} from './achievements.schemas';
import type { FlashcardsDeps } from './deps';

/** GET /api/achievements and the claim (the hook evaluated after reviews is wired in start.ts). */
export function registerAchievementRoutes(app: Express, deps: FlashcardsDeps, docs: ApiDocs): void {
  const achievements = deps.achievementDeps;
  const area = { tags: ['achievements'], auth: 'access' as const, before: [deps.requireUser] };

  declareRoutes(app, docs, [
    {
      ...area,
      method: 'get',
      path: '/api/achievements',
      summary: 'Achievements: unlocked, locked (with progress) and recent',
      response: AchievementBoardResponse,
      handler: async (_req, res) => {
        const userId = deps.userIdOf(res);
        const onEvaluationError = (err: unknown) =>
          deps.logger.warn({ err, userId }, 'achievement evaluation failed');
        sendSuccess(res, await getAchievements(userId, { ...achievements, onEvaluationError }));
      },
    },
    {
      ...area,
      method: 'post',
      path: '/api/achievements/:achievementId/claim',
      summary: "Claim an unlocked achievement's XP (once)",
      params: ClaimAchievementParams,
      response: ClaimAchievementResponse,
      errors: { 404: 'Unknown achievement', 409: 'Not unlocked yet, or already claimed' },
      handler: async (req, res) => {
        const { achievementId } = parseInput(ClaimAchievementParams, req.params);
        sendSuccess(res, await claimAchievement(deps.userIdOf(res), achievementId, achievements));
      },
    },
  ]);
}
