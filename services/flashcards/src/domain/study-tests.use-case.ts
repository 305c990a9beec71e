import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { dayIn, zoneOf } from './learning/calendar';
import type { CardRepository, LearningProfileRepository, StudyTest, StudyTestRepository } from './ports';

type StudyDeps = {
  studyTests: StudyTestRepository;
  profiles: Pick<LearningProfileRepository, 'get'>;
  clock: { now(): Date };
};

/** Today in the user's zone: the profile's, else the request's X-Timezone, else UTC. */
async function todayOf(userId: string, requestZone: string | undefined, deps: StudyDeps) {
  const profile = await deps.profiles.get(userId);
  return dayIn(deps.clock.now(), zoneOf(profile.timezone, requestZone));
}

/** The tests the user completed on a study day (the user's today when not given). */
export async function completedTests(
  userId: string,
  studyDate: string | undefined,
  deps: StudyDeps,
  requestZone?: string,
): Promise<{ studyDate: string; tests: StudyTest[] }> {
  const day = studyDate ?? (await todayOf(userId, requestZone, deps));
  return { studyDate: day, tests: await deps.studyTests.forDay(userId, day) };
}

/** Records a test taken on one of the user's cards (CONFLICT when that test was already recorded). */
export async function recordTest(
  userId: string,
  test: { flashcardId: string; testType: string; isCorrect: boolean; studyDate?: string | undefined },
  deps: StudyDeps & { cards: Pick<CardRepository, 'findActive'> },
  requestZone?: string,
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
    studyDate: test.studyDate ?? (await todayOf(userId, requestZone, deps)),
    completedAt: now,
  });
}
