import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { utcDay } from './learning/streak';
import type { CardRepository, StudyTest, StudyTestRepository } from './ports';

type StudyDeps = { studyTests: StudyTestRepository; clock: { now(): Date } };

/** The tests the user completed on a study day (UTC; today when not given). */
export async function completedTests(
  userId: string,
  studyDate: string | undefined,
  deps: StudyDeps,
): Promise<{ studyDate: string; tests: StudyTest[] }> {
  const day = studyDate ?? utcDay(deps.clock.now());
  return { studyDate: day, tests: await deps.studyTests.forDay(userId, day) };
}

/** Records a test taken on one of the user's cards (CONFLICT when that test was already recorded). */
export async function recordTest(
  userId: string,
  test: { flashcardId: string; testType: string; isCorrect: boolean; studyDate?: string | undefined },
  deps: StudyDeps & { cards: Pick<CardRepository, 'findActive'> },
): Promise<StudyTest> {
  if (!(await deps.cards.findActive(userId, test.flashcardId)))
    throw new AppError('NOT_FOUND', 'Flashcard not found');
  const now = deps.clock.now();
  return deps.studyTests.insert({
    id: randomUUID(),
    userId,
    flashcardId: test.flashcardId,
    testType: test.testType,
    isCorrect: test.isCorrect,
    studyDate: test.studyDate ?? utcDay(now),
    completedAt: now,
  });
}
