import { z } from 'zod';
import { QUESTION_TYPES } from '../../domain/questions/question-types';
import { guid } from './common.schemas';

const studyDate = z.iso.date('must be a date YYYY-MM-DD');

/** GET /api/study/completed-tests: the study day (UTC), today by default. */
export const CompletedTestsQuery = z.object({ studyDate: studyDate.optional() }).strict();

/** POST /api/study/record-test. */
export const RecordTestBody = z
  .object({
    flashcardId: guid,
    testType: z.enum(QUESTION_TYPES),
    isCorrect: z.boolean(),
    studyDate: studyDate.optional(),
  })
  .strict();
