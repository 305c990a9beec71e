import type { Grade } from './grade';

export type Algorithm = 'exponential' | 'sm2' | 'fsrs';
export const ALGORITHMS = ['exponential', 'sm2', 'fsrs'] as const;

export const DAY_MS = 86_400_000;
/** Longest interval any scheduler gives: a year (FSRS has its own maximum set to the same). */
export const MAX_INTERVAL_DAYS = 365;
export const MIN_EASE = 1.3;
export const MAX_EASE = 3.0;

export interface FsrsMemory {
  stability: number;
  difficulty: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: number;
}

/** The scheduling fields of a card: what a review reads and rewrites. */
export interface ScheduleState {
  easinessFactor: number;
  repetitions: number;
  intervalDays: number;
  masteryLevel: number;
  timesReviewed: number;
  timesCorrect: number;
  lastReviewedAt: Date | null;
  nextReviewDate: Date;
  fsrs: FsrsMemory | null;
}

/** The part a particular algorithm decides. */
export interface IntervalDecision {
  easinessFactor: number;
  repetitions: number;
  intervalDays: number;
  nextReviewDate: Date;
  fsrs: FsrsMemory | null;
}

export interface Scheduler {
  next(state: ScheduleState, grade: Grade, now: Date): IntervalDecision;
}

export const clampEase = (ef: number) => Math.round(Math.min(MAX_EASE, Math.max(MIN_EASE, ef)) * 100) / 100;
export const addDays = (now: Date, days: number) => new Date(now.getTime() + days * DAY_MS);
