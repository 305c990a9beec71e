import { Router } from 'express';
import { type ApiDocs, declareRoutes, sendData } from '@lingua/openapi';
import { completedTests, recordTest } from '../../domain/study-tests.use-case';
import type { FlashcardsDeps } from './deps';
import { CARD_NOT_FOUND } from './flashcards.routes';
import { CompletedTestsQuery, RecordTestBody } from './study.schemas';
import { CompletedTests, StudyTest } from './sets-study.responses';
import { requestZone } from './request-zone';
import { validate } from './validate';

const presentTest = (t: {
  id: string;
  flashcardId: string;
  testType: string;
  isCorrect: boolean;
  studyDate: string;
  completedAt: Date;
}): StudyTest => ({
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
export function studyRouter(deps: FlashcardsDeps, docs: ApiDocs): Router {
  const router = Router();
  router.use(deps.groupBUser);
  const study = { tags: ['study'], auth: 'access' as const };

  declareRoutes(
    router,
    docs,
    [
      {
        ...study,
        method: 'get',
        path: '/api/study/completed-tests',
        summary: 'Tests completed in the study day',
        query: CompletedTestsQuery,
        response: CompletedTests,
        handler: async (req, res) => {
          const q = validate(CompletedTestsQuery, req.query);
          const { studyDate, tests } = await completedTests(
            deps.userIdOf(res),
            q.studyDate,
            deps,
            requestZone(req),
          );
          sendData(res, CompletedTests, { studyDate, tests: tests.map(presentTest), count: tests.length });
        },
      },
      {
        ...study,
        method: 'post',
        path: '/api/study/record-test',
        summary: 'Record a test',
        body: RecordTestBody,
        response: StudyTest,
        status: 201,
        errors: { ...CARD_NOT_FOUND, 409: 'Already recorded' },
        handler: async (req, res) => {
          const body = validate(RecordTestBody, req.body);
          const test = await recordTest(deps.userIdOf(res), body, deps, requestZone(req));
          sendData(res, StudyTest, presentTest(test), { status: 201, message: 'Test recorded' });
        },
      },
    ],
    '/api/study',
  );
  return router;
}
