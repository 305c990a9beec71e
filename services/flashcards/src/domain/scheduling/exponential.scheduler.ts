import { isCorrect } from './grade';
import { addDays, clampEase, MAX_INTERVAL_DAYS, type Scheduler } from './schedule-state';

const EASE_DELTA = { again: -0.2, hard: -0.15, good: 0, easy: 0.15 } as const;

/**
 * The spec's scheduler: the interval is 2^n days, n = consecutive right answers. A wrong answer
 * resets n to 0 (interval 1 day). The ease factor is kept up to date (SM-2 deltas) but does not
 * change the interval; intervals are capped at a year.
 */
export const exponentialScheduler: Scheduler = {
  next(state, grade, now) {
    const repetitions = isCorrect(grade) ? state.repetitions + 1 : 0;
    const intervalDays = Math.min(2 ** Math.min(repetitions, 30), MAX_INTERVAL_DAYS);
    return {
      easinessFactor: clampEase(state.easinessFactor + EASE_DELTA[grade]),
      repetitions,
      intervalDays,
      nextReviewDate: addDays(now, intervalDays),
      fsrs: state.fsrs,
    };
  },
};
