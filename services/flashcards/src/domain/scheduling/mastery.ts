import type { Grade } from './grade';

/** Mastery at or above this counts as mastered. */
export const MASTERED_AT = 80;

const MASTERY_DELTA = { again: -20, hard: 10, good: 15, easy: 20 } as const;

/** Mastery 0-100: right answers raise it (more when easy), a wrong answer lowers it by 20. */
export const nextMastery = (mastery: number, grade: Grade) =>
  Math.min(100, Math.max(0, Math.round(mastery + MASTERY_DELTA[grade])));
