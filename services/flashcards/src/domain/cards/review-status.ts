import { UTC, dayIn, daysBetweenDays, endOfDay, startOfDay } from '../learning/calendar';

export type ReviewStatusKind = 'overdue' | 'due_today' | 'upcoming';

export interface ReviewStatus {
  status: ReviewStatusKind;
  /** Whole UTC days the card is overdue (0 when due today or later). */
  overdueDays: number;
  /** Whole UTC days until it is due (0 when due today or overdue). */
  daysUntilDue: number;
  isOverdue: boolean;
  isDueToday: boolean;
  label: string;
}

const DAY_MS = 86_400_000;

/** Whole UTC calendar days from `now`'s day to `date`'s day (negative: earlier). */
export const utcDayDiff = (now: Date, date: Date) =>
  Math.floor(date.getTime() / DAY_MS) - Math.floor(now.getTime() / DAY_MS);

/** Whole calendar days in the zone from `now`'s day to `date`'s day (negative: earlier). */
export const dayDiffIn = (now: Date, date: Date, zone: string) =>
  zone === UTC ? utcDayDiff(now, date) : daysBetweenDays(dayIn(now, zone), dayIn(date, zone));

/** A card's review status on the UTC calendar: overdue by N days, due today, or due in N days. Pure. */
export function reviewStatus(nextReviewDate: Date, now: Date): ReviewStatus {
  return reviewStatusIn(utcDayDiff(now, nextReviewDate));
}

/** The review status of a card due `diff` UTC days from today. */
export function reviewStatusIn(diff: number): ReviewStatus {
  if (diff < 0) {
    const n = -diff;
    return {
      status: 'overdue',
      overdueDays: n,
      daysUntilDue: 0,
      isOverdue: true,
      isDueToday: false,
      label: `Overdue by ${n} day${n === 1 ? '' : 's'}`,
    };
  }
  if (diff === 0)
    return {
      status: 'due_today',
      overdueDays: 0,
      daysUntilDue: 0,
      isOverdue: false,
      isDueToday: true,
      label: 'Due today',
    };
  return {
    status: 'upcoming',
    overdueDays: 0,
    daysUntilDue: diff,
    isOverdue: false,
    isDueToday: false,
    label: `Due in ${diff} day${diff === 1 ? '' : 's'}`,
  };
}

/** The due window of a Group B due query, on the user's calendar. null = nothing can match. */
export function dueWindow(
  now: Date,
  opts: { includeToday: boolean; includeOverdue: boolean },
  zone: string = UTC,
): { from?: Date; to: Date } | null {
  const day = dayIn(now, zone);
  const today = startOfDay(day, zone);
  const endOfToday = endOfDay(day, zone);
  if (opts.includeToday && opts.includeOverdue) return { to: endOfToday };
  if (opts.includeToday) return { from: today, to: endOfToday };
  if (opts.includeOverdue) return { to: new Date(today.getTime() - 1) };
  return null;
}
