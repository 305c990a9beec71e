import {
  type Card as FsrsCard,
  createEmptyCard,
  fsrs,
  type Grade as FsrsGrade,
  Rating,
  type State,
} from 'ts-fsrs';
import type { Grade } from './grade';
import { MAX_INTERVAL_DAYS, type Scheduler } from './schedule-state';

const RATING: Record<Grade, FsrsGrade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};

// Fuzz off: the same history always gives the same schedule (tests, replays, support questions).
const engine = fsrs({ enable_fuzz: false, maximum_interval: MAX_INTERVAL_DAYS });

/**
 * FSRS-6 through ts-fsrs. The memory state lives on the card (`fsrs`); a card without one (new, or
 * scheduled so far by another algorithm) starts as a new FSRS card. Short-term learning steps give
 * intervals under a day: `intervalDays` is then 0 and `nextReviewDate` is minutes away.
 */
export const fsrsScheduler: Scheduler = {
  next(state, grade, now) {
    const card: FsrsCard = state.fsrs
      ? {
          due: state.nextReviewDate,
          stability: state.fsrs.stability,
          difficulty: state.fsrs.difficulty,
          elapsed_days: 0,
          scheduled_days: state.fsrs.scheduledDays,
          learning_steps: state.fsrs.learningSteps,
          reps: state.fsrs.reps,
          lapses: state.fsrs.lapses,
          state: state.fsrs.state as State,
          ...(state.lastReviewedAt && { last_review: state.lastReviewedAt }),
        }
      : createEmptyCard(now);
    const { card: next } = engine.next(card, now, RATING[grade]);
    return {
      easinessFactor: state.easinessFactor,
      repetitions: grade === 'again' ? 0 : state.repetitions + 1,
      intervalDays: next.scheduled_days,
      nextReviewDate: next.due,
      fsrs: {
        stability: next.stability,
        difficulty: next.difficulty,
        scheduledDays: next.scheduled_days,
        learningSteps: next.learning_steps,
        reps: next.reps,
        lapses: next.lapses,
        state: next.state,
      },
    };
  },
};
