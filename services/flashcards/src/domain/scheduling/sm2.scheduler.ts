import { isCorrect } from './grade';
import { addDays, MAX_INTERVAL_DAYS, MIN_EASE, type Scheduler } from './schedule-state';

/** SM-2 response quality for each grade (q < 3 is a failure). */
const QUALITY = { again: 1, hard: 3, good: 4, easy: 5 } as const;

/**
 * Textbook SM-2 (Wozniak 1990): intervals 1, 6, then previous × EF; EF' = EF + 0.1 − (5−q)(0.08 + (5−q)·0.02),
 * never below 1.3. A failure restarts the repetitions at interval 1 without changing EF.
 */
export const sm2Scheduler: Scheduler = {
  next(state, grade, now) {
    if (!isCorrect(grade)) {
      return {
        easinessFactor: state.easinessFactor,
        repetitions: 0,
        intervalDays: 1,
        nextReviewDate: addDays(now, 1),
        fsrs: state.fsrs,
      };
    }
    const q = QUALITY[grade];
    const ef = Math.max(MIN_EASE, state.easinessFactor + 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02));
    const repetitions = state.repetitions + 1;
    const interval =
      repetitions === 1 ? 1 : repetitions === 2 ? 6 : Math.round(Math.max(1, state.intervalDays) * ef);
    const intervalDays = Math.min(interval, MAX_INTERVAL_DAYS);
    return {
      easinessFactor: Math.round(ef * 100) / 100,
      repetitions,
      intervalDays,
      nextReviewDate: addDays(now, intervalDays),
      fsrs: state.fsrs,
    };
  },
};
