import { dayIn, endOfDay, plusDays, plusMonths, startOfDay } from './calendar';
import { visibleStreak } from './streak';

export type StatsPeriod = 'today' | 'week' | 'month' | 'year' | 'all';

export interface ReviewFact {
  cardId: string;
  correct: boolean;
  responseTimeMs: number;
  firstReview: boolean;
  becameMastered: boolean;
  reviewedAt: Date;
}

export interface LearningStats {
  period: StatsPeriod;
  from: Date | null;
  to: Date;
  cardsReviewed: number;
  reviews: number;
  cardsLearned: number;
  cardsMastered: number;
  studyTime: number;
  accuracy: number;
  streak: number;
  longestStreak: number;
  dailyGoal: number;
  dailyGoalProgress: number;
  chart: { dates: string[]; values: number[] };
}

/** The first local day of a period: today, the last 7 or 30 days, the last 12 months, or all time. */
function firstDay(period: StatsPeriod, today: string): string | undefined {
  switch (period) {
    case 'today':
      return today;
    case 'week':
      return plusDays(today, -6);
    case 'month':
      return plusDays(today, -29);
    case 'year':
      return plusMonths(today, -11);
    case 'all':
      return undefined;
  }
}

/** Start of the window of a period, at local midnight in the user's zone. */
export function periodStart(period: StatsPeriod, now: Date, zone: string): Date | undefined {
  const day = firstDay(period, dayIn(now, zone));
  return day === undefined ? undefined : startOfDay(day, zone);
}

const monthKey = (day: string) => day.slice(0, 7);

/** Chart buckets (local days for today/week/month, months for year/all: from the first review, at most 10 years). */
function buckets(period: StatsPeriod, today: string, firstReviewDay: string | undefined): string[] {
  const out: string[] = [];
  const from = firstDay(period, today);
  if (period === 'today' || period === 'week' || period === 'month') {
    for (let d = from!; d <= today; d = plusDays(d, 1)) out.push(d);
    return out;
  }
  let m = plusMonths(from ?? firstReviewDay ?? today, 0);
  if (period === 'all') {
    const oldest = plusMonths(today, -119);
    if (m < oldest) m = oldest;
  }
  for (const end = plusMonths(today, 0); m <= end; m = plusMonths(m, 1)) out.push(monthKey(m));
  return out;
}

/** Learning figures of a period from its reviews and the user's streak and goal, in the user's zone. Pure. */
export function learningStats(
  period: StatsPeriod,
  reviews: ReviewFact[],
  profile: { currentStreak: number; longestStreak: number; lastStudyDay: string | null; dailyGoal: number },
  now: Date,
  zone: string,
): LearningStats {
  const today = dayIn(now, zone);
  const from = periodStart(period, now, zone);
  const correct = reviews.filter((r) => r.correct).length;
  const byDay = period === 'today' || period === 'week' || period === 'month';
  const counts = new Map<string, number>();
  let todayCount = 0;
  let firstReviewDay: string | undefined;
  for (const r of reviews) {
    const day = dayIn(r.reviewedAt, zone);
    if (day === today) todayCount++;
    if (!firstReviewDay || day < firstReviewDay) firstReviewDay = day;
    const k = byDay ? day : monthKey(day);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const dates = buckets(period, today, firstReviewDay);
  return {
    period,
    from: from ?? null,
    // the end of today in the user's zone, not the moment of the request: the same facts give the
    // same answer (and ETag)
    to: endOfDay(today, zone),
    cardsReviewed: new Set(reviews.map((r) => r.cardId)).size,
    reviews: reviews.length,
    cardsLearned: reviews.filter((r) => r.firstReview).length,
    cardsMastered: reviews.filter((r) => r.becameMastered).length,
    studyTime: Math.round(reviews.reduce((s, r) => s + r.responseTimeMs, 0) / 60_000),
    accuracy: reviews.length === 0 ? 0 : Math.round((correct / reviews.length) * 100),
    streak: visibleStreak(profile, today),
    longestStreak: profile.longestStreak,
    dailyGoal: profile.dailyGoal,
    dailyGoalProgress: Math.min(100, Math.round((todayCount / Math.max(1, profile.dailyGoal)) * 100)),
    chart: { dates, values: dates.map((d) => counts.get(d) ?? 0) },
  };
}

/** XP of a session: 10 per right answer, 2 per wrong one (trying counts too). */
export const sessionXp = (correct: number, wrong: number) => correct * 10 + wrong * 2;
