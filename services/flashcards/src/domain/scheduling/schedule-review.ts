import { exponentialScheduler } from './exponential.scheduler';
import { fsrsScheduler } from './fsrs.scheduler';
import { type Grade, isCorrect } from './grade';
import { MASTERED_AT, nextMastery } from './mastery';
import type { Algorithm, ScheduleState, Scheduler } from './schedule-state';
import { sm2Scheduler } from './sm2.scheduler';

export const SCHEDULERS: Record<Algorithm, Scheduler> = {
  exponential: exponentialScheduler,
  sm2: sm2Scheduler,
  fsrs: fsrsScheduler,
};

export interface ReviewOutcome {
  state: ScheduleState;
  correct: boolean;
  firstReview: boolean;
  becameMastered: boolean;
}

/**
 * A right answer to a card that is not due yet (due on a later day: a cram or practice round, a
 * repeat within seconds). FSRS schedules from the time actually elapsed by itself; the interval
 * rules (2^n, SM-2) would grant a due review's interval, so for them such an answer is recorded
 * but moves neither the schedule nor the mastery. A wrong answer is news at any time: it lapses.
 */
export function isEarlyRightAnswer(state: ScheduleState, grade: Grade, now: Date): boolean {
  const dueDay = Date.UTC(
    state.nextReviewDate.getUTCFullYear(),
    state.nextReviewDate.getUTCMonth(),
    state.nextReviewDate.getUTCDate(),
  );
  return isCorrect(grade) && state.lastReviewedAt !== null && now.getTime() < dueDay;
}

/** A card's whole schedule after one answer: the algorithm's interval plus the shared counters. Pure. */
export function scheduleReview(
  algorithm: Algorithm,
  state: ScheduleState,
  grade: Grade,
  now: Date,
): ReviewOutcome {
  const correct = isCorrect(grade);
  const early = algorithm !== 'fsrs' && isEarlyRightAnswer(state, grade, now);
  const decision = early
    ? {
        easinessFactor: state.easinessFactor,
        repetitions: state.repetitions,
        intervalDays: state.intervalDays,
        nextReviewDate: state.nextReviewDate,
        fsrs: state.fsrs,
      }
    : SCHEDULERS[algorithm].next(state, grade, now);
  const masteryLevel = early ? state.masteryLevel : nextMastery(state.masteryLevel, grade);
  return {
    state: {
      ...decision,
      masteryLevel,
      timesReviewed: state.timesReviewed + 1,
      timesCorrect: state.timesCorrect + (correct ? 1 : 0),
      lastReviewedAt: now,
    },
    correct,
    firstReview: state.timesReviewed === 0,
    becameMastered: state.masteryLevel < MASTERED_AT && masteryLevel >= MASTERED_AT,
  };
}
