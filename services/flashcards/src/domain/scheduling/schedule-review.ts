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

/** A card's whole schedule after one answer: the algorithm's interval plus the shared counters. Pure. */
export function scheduleReview(
  algorithm: Algorithm,
  state: ScheduleState,
  grade: Grade,
  now: Date,
): ReviewOutcome {
  const decision = SCHEDULERS[algorithm].next(state, grade, now);
  const correct = isCorrect(grade);
  const masteryLevel = nextMastery(state.masteryLevel, grade);
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
