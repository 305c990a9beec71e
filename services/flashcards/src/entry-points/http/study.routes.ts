import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { AppError } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { utcDay } from '../../domain/learning/streak';
import type { FlashcardsDeps } from './deps';
import { CompletedTestsQuery, RecordTestBody } from './study.schemas';
import { validate } from './validate';

const presentTest = (t: {
  id: string;
  flashcardId: string;
  testType: string;
  isCorrect: boolean;
  studyDate: string;
  completedAt: Date;
}) => ({
  id: t.id,
  flashcardId: t.flashcardId,
  testType: t.testType,
  isCorrect: t.isCorrect,
  studyDate: t.studyDate,
  completedAt: t.completedAt,
});

/**
 * Group B `/api/study`: the tests (question types) a learner already did per card in the current
 * study day (UTC), so the app does not ask the same question twice in one study.
 */
export function studyRouter(deps: FlashcardsDeps): Router {
  const router = Router();
  router.use(deps.groupBUser);

  router.get('/completed-tests', async (req, res) => {
    const q = validate(CompletedTestsQuery, req.query);
    const studyDate = q.studyDate ?? utcDay(deps.clock.now());
    const tests = await deps.studyTests.forDay(deps.userIdOf(res), studyDate);
    sendSuccess(res, { studyDate, tests: tests.map(presentTest), count: tests.length });
  });

  router.post('/record-test', async (req, res) => {
    const body = validate(RecordTestBody, req.body);
    const uid = deps.userIdOf(res);
    if (!(await deps.cards.findActive(uid, body.flashcardId)))
      throw new AppError('NOT_FOUND', 'Flashcard not found');
    const now = deps.clock.now();
    const test = await deps.studyTests.insert({
      id: randomUUID(),
      userId: uid,
      flashcardId: body.flashcardId,
      testType: body.testType,
      isCorrect: body.isCorrect,
      studyDate: body.studyDate ?? utcDay(now),
      completedAt: now,
    });
    sendSuccess(res, presentTest(test), { status: 201, message: 'Test recorded' });
  });

  return router;
}
