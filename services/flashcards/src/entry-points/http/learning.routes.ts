import { Router } from 'express';
import { type ApiDocs, declareRoutes, sendData } from '@lingua/openapi';
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
import { REVIEW_ERRORS } from './flashcards.routes';
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

const P = '/api/learning';

/** Group C `/api/learning`. */
export function learningRouter(deps: FlashcardsDeps, docs: ApiDocs): Router {
  const router = Router();
  router.use(deps.requireUser);
  const learning = { tags: ['learning'], auth: 'access' as const };

  declareRoutes(
    router,
    docs,
    [
      {
        ...learning,
        method: 'get',
        path: `${P}/due`,
        summary: 'Due cards with their learning record',
        query: LearningDueQuery,
        response: LearningDue,
        handler: async (req, res) => {
          const q = validate(LearningDueQuery, req.query);
          const { cards, totalDue } = await dueForLearning(deps.userIdOf(res), q, deps);
          sendData(res, LearningDue, { cards: cards.map(withRecord), totalDue });
        },
      },
      {
        ...learning,
        method: 'post',
        path: `${P}/review`,
        summary: 'Review a card (rating 1-5) with the user’s scheduler',
        body: LearningReviewBody,
        response: LearningReviewResult,
        errors: REVIEW_ERRORS,
        handler: async (req, res) => {
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
        },
      },
      {
        ...learning,
        method: 'get',
        path: `${P}/stats`,
        summary: 'Learning statistics for a period',
        description:
          'Days are the user’s: the profile’s timezone, else the request’s X-Timezone, else UTC (DST and 30/45-minute offsets included). `from` is local midnight of the first day, `to` the end of today there (stable within the day), chart dates are local days, and dailyGoalProgress counts today’s reviews against the one daily goal (also set by PUT /api/users/settings). Needs an access token (Authorization: Bearer).',
        query: StatsQuery,
        response: LearningStatsResult,
        handler: async (req, res) => {
          const q = validate(StatsQuery, req.query);
          sendData(
            res,
            LearningStatsResult,
            await learningStatsOf(deps.userIdOf(res), { ...q, zone: requestZone(req) }, deps),
          );
        },
      },
      {
        ...learning,
        method: 'post',
        path: `${P}/session/start`,
        summary: 'Start a session',
        body: SessionStartBody,
        example: { mode: 'review', limit: 20 },
        response: SessionStarted,
        status: 201,
        handler: async (req, res) => {
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
        },
      },
      {
        ...learning,
        method: 'post',
        path: `${P}/session/end`,
        summary: 'End a session',
        body: SessionEndBody,
        response: SessionEnded,
        errors: { 404: 'Session not found' },
        handler: async (req, res) => {
          const { sessionId } = validate(SessionEndBody, req.body);
          const result = await endSession(deps.userIdOf(res), sessionId, deps);
          sendData(res, SessionEnded, { sessionId, ...result });
        },
      },
      {
        ...learning,
        method: 'get',
        path: `${P}/settings`,
        summary: 'Scheduler and daily goal',
        description:
          'The daily goal is the one the profile shows (PUT /api/users/settings sets the same goal). Needs an access token (Authorization: Bearer).',
        response: LearningSettings,
        handler: async (_req, res) => {
          sendData(res, LearningSettings, await learningSettings(deps.userIdOf(res), deps));
        },
      },
      {
        ...learning,
        method: 'put',
        path: `${P}/settings`,
        summary: 'Choose the scheduler (exponential, sm2, fsrs) and daily goal',
        description:
          'The daily goal is the user’s one goal: GET /api/users/profile and the stats show it, and PUT /api/users/settings {dailyGoal} changes the same value. Needs an access token (Authorization: Bearer).',
        body: SettingsBody,
        response: LearningSettings,
        handler: async (req, res) => {
          const body = validate(SettingsBody, req.body);
          sendData(res, LearningSettings, await changeLearningSettings(deps.userIdOf(res), body, deps));
        },
      },
    ],
    P,
  );
  return router;
}
