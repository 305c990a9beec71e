import { Router } from 'express';
import { sendData } from '@lingua/openapi';
import {
  changeLearningSettings,
  dueForLearning,
  endSession,
  learningSettings,
  learningStatsOf,
  reviewWithProfile,
  startSession,
} from '../../domain/learning/learning.use-case';
import type { Card } from '../../domain/ports';
import { catalogueCard, learningRecord } from './card.presenter';
import type { FlashcardsDeps } from './deps';
import {
  LearningDue,
  LearningReviewResult,
  LearningSettings,
  LearningStatsResult,
  SessionEnded,
  SessionStarted,
} from './learning.responses';
import {
  LearningDueQuery,
  LearningReviewBody,
  SessionEndBody,
  SessionStartBody,
  SettingsBody,
  StatsQuery,
} from './learning.schemas';
import { requestZone } from './request-zone';
import { validate } from './validate';

const withRecord = (card: Card) => ({ ...catalogueCard(card), learningRecord: learningRecord(card) });

/** Group C `/api/learning`. */
export function learningRouter(deps: FlashcardsDeps): Router {
  const router = Router();
  router.use(deps.requireUser);

  router.get('/due', async (req, res) => {
    const q = validate(LearningDueQuery, req.query);
    const { cards, totalDue } = await dueForLearning(deps.userIdOf(res), q, deps);
    sendData(res, LearningDue, { cards: cards.map(withRecord), totalDue });
  });

  router.post('/review', async (req, res) => {
    const body = validate(LearningReviewBody, req.body);
    const { card, correct, achievements, algorithm } = await reviewWithProfile(
      deps.userIdOf(res),
      { ...body, zone: requestZone(req) },
      deps,
    );
    sendData(res, LearningReviewResult, {
      cardId: card.id,
      correct,
      nextReviewDate: card.nextReviewDate,
      interval: card.intervalDays,
      easeFactor: card.easinessFactor,
      masteryLevel: card.masteryLevel,
      algorithm,
      achievements,
    });
  });

  router.get('/stats', async (req, res) => {
    const q = validate(StatsQuery, req.query);
    sendData(
      res,
      LearningStatsResult,
      await learningStatsOf(deps.userIdOf(res), { ...q, zone: requestZone(req) }, deps),
    );
  });

  router.post('/session/start', async (req, res) => {
    const body = validate(SessionStartBody, req.body);
    const { session, cards } = await startSession(deps.userIdOf(res), body, deps);
    sendData(
      res,
      SessionStarted,
      {
        sessionId: session.id,
        mode: session.mode,
        startedAt: session.startedAt,
        cards: cards.map(withRecord),
      },
      { status: 201 },
    );
  });

  router.post('/session/end', async (req, res) => {
    const { sessionId } = validate(SessionEndBody, req.body);
    const result = await endSession(deps.userIdOf(res), sessionId, deps);
    sendData(res, SessionEnded, { sessionId, ...result });
  });

  router.get('/settings', async (_req, res) => {
    sendData(res, LearningSettings, await learningSettings(deps.userIdOf(res), deps));
  });

  router.put('/settings', async (req, res) => {
    const body = validate(SettingsBody, req.body);
    sendData(res, LearningSettings, await changeLearningSettings(deps.userIdOf(res), body, deps));
  });

  return router;
}
