import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { AppError } from '@lingua/errors';
import { sendData } from '@lingua/openapi';
import type { Card } from '../../domain/ports';
import { learningStats, periodStart, sessionXp } from '../../domain/learning/stats';
import { reviewCard, unlockAchievements } from '../../domain/review-card.use-case';
import { gradeFromRating } from '../../domain/scheduling/grade';
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
import { validate } from './validate';

const withRecord = (card: Card) => ({ ...catalogueCard(card), learningRecord: learningRecord(card) });

/** Group C `/api/learning`. */
export function learningRouter(deps: FlashcardsDeps): Router {
  const router = Router();
  router.use(deps.requireUser);

  router.get('/due', async (req, res) => {
    const q = validate(LearningDueQuery, req.query);
    const uid = deps.userIdOf(res);
    const now = deps.clock.now();
    if (q.setId && !(await deps.sets.find(uid, q.setId)))
      throw new AppError('NOT_FOUND', 'Flashcard set not found');
    const [cards, totalDue] = await Promise.all([
      deps.cards.due(uid, { to: now, limit: q.limit, ...(q.setId && { setId: q.setId }) }),
      deps.cards.countDue(uid, now, q.setId),
    ]);
    sendData(res, LearningDue, { cards: cards.map(withRecord), totalDue });
  });

  router.post('/review', async (req, res) => {
    const body = validate(LearningReviewBody, req.body);
    const uid = deps.userIdOf(res);
    const profile = await deps.profiles.get(uid);
    const { card, outcome, achievements } = await reviewCard(
      {
        userId: uid,
        cardId: body.cardId,
        grade: gradeFromRating(body.rating),
        rating: body.rating,
        algorithm: profile.algorithm,
        responseTimeMs: body.responseTime ?? 0,
        mode: body.mode ?? null,
        sessionId: body.sessionId ?? null,
      },
      deps,
    );
    sendData(res, LearningReviewResult, {
      cardId: card.id,
      correct: outcome.correct,
      nextReviewDate: card.nextReviewDate,
      interval: card.intervalDays,
      easeFactor: card.easinessFactor,
      masteryLevel: card.masteryLevel,
      algorithm: profile.algorithm,
      achievements,
    });
  });

  router.get('/stats', async (req, res) => {
    const q = validate(StatsQuery, req.query);
    const uid = deps.userIdOf(res);
    const now = deps.clock.now();
    const [profile, reviews] = await Promise.all([
      deps.profiles.get(uid),
      deps.reviews.between(uid, periodStart(q.period, now), new Date(now.getTime() + 1), q.setId),
    ]);
    sendData(res, LearningStatsResult, learningStats(q.period, reviews, profile, now));
  });

  router.post('/session/start', async (req, res) => {
    const body = validate(SessionStartBody, req.body);
    const uid = deps.userIdOf(res);
    if (body.setId && !(await deps.sets.find(uid, body.setId)))
      throw new AppError('NOT_FOUND', 'Flashcard set not found');
    const now = deps.clock.now();
    const n = body.limit ?? 20;
    const cards =
      body.mode === 'review'
        ? await deps.cards.due(uid, { to: now, limit: n, ...(body.setId && { setId: body.setId }) })
        : body.mode === 'learn'
          ? await deps.cards.unreviewed(uid, n, body.setId)
          : await deps.cards.weakest(uid, n, body.setId);
    const sessionId = randomUUID();
    await deps.sessions.insert({
      id: sessionId,
      userId: uid,
      mode: body.mode,
      setId: body.setId ?? null,
      cardIds: cards.map((c) => c.id),
      startedAt: now,
      endedAt: null,
      result: null,
    });
    sendData(
      res,
      SessionStarted,
      { sessionId, mode: body.mode, startedAt: now, cards: cards.map(withRecord) },
      { status: 201 },
    );
  });

  router.post('/session/end', async (req, res) => {
    const { sessionId } = validate(SessionEndBody, req.body);
    const uid = deps.userIdOf(res);
    const session = await deps.sessions.find(uid, sessionId);
    if (!session) throw new AppError('NOT_FOUND', 'Learning session not found');
    // ending twice answers the first result again (a retried request must not double the XP)
    if (session.result) return sendData(res, SessionEnded, { sessionId, ...session.result });
    const now = deps.clock.now();
    const reviews = await deps.reviews.between(
      uid,
      session.startedAt,
      new Date(now.getTime() + 1),
      session.setId ?? undefined,
    );
    const correct = reviews.filter((r) => r.correct).length;
    const achievements = await unlockAchievements(uid, deps);
    const result = {
      duration: Math.round((now.getTime() - session.startedAt.getTime()) / 1000),
      cardsStudied: new Set(reviews.map((r) => r.cardId)).size,
      accuracy: reviews.length === 0 ? 0 : Math.round((correct / reviews.length) * 100),
      xpEarned: sessionXp(correct, reviews.length - correct),
      achievements,
    };
    const ended = await deps.sessions.end(uid, sessionId, now, result);
    if (!ended) {
      const again = await deps.sessions.find(uid, sessionId);
      return sendData(res, SessionEnded, { sessionId, ...(again?.result ?? result) });
    }
    await deps.profiles.addXp(uid, result.xpEarned, now);
    sendData(res, SessionEnded, { sessionId, ...result });
  });

  router.get('/settings', async (_req, res) => {
    const p = await deps.profiles.get(deps.userIdOf(res));
    sendData(res, LearningSettings, { algorithm: p.algorithm, dailyGoal: p.dailyGoal });
  });

  router.put('/settings', async (req, res) => {
    const body = validate(SettingsBody, req.body);
    const p = await deps.profiles.updateSettings(deps.userIdOf(res), body, deps.clock.now());
    sendData(res, LearningSettings, { algorithm: p.algorithm, dailyGoal: p.dailyGoal });
  });

  return router;
}
