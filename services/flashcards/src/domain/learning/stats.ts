import { addDays, startOfUtcDay, utcDay, visibleStreak } from './streak';

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

/** Start of the window of a period (UTC): today, the last 7 or 30 days, the last 12 months, or all time. */
export function periodStart(period: StatsPeriod, now: Date): Date | undefined {
  const today = startOfUtcDay(now);
  switch (period) {
    case 'today':
      return today;
    case 'week':
      return addDays(today, -6);
    case 'month':
      return addDays(today, -29);
    case 'year':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
    case 'all':
      return undefined;
  }
}

const monthKey = (d: Date) => d.toISOString().slice(0, 7);

/** Chart buckets: days for today/week/month, months for year/all (all: from the first review, at most 10 years). */
function buckets(period: StatsPeriod, from: Date | undefined, now: Date, first: Date | undefined): string[] {
  const out: string[] = [];
  if (period === 'today' || period === 'week' || period === 'month') {
    for (let d = from!; d.getTime() <= now.getTime(); d = addDays(d, 1)) out.push(utcDay(d));
    return out;
  }
  const start = from ?? first ?? now;
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  let m = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1);
  if (period === 'all') m = Math.max(m, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 119, 1));
  for (; m <= end;) {
    const d = new Date(m);
    out.push(monthKey(d));
    m = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return out;
}

/** Learning figures of a period from its reviews and the user's streak and goal. Pure. */
export function learningStats(
  period: StatsPeriod,
  reviews: ReviewFact[],
  profile: { currentStreak: number; longestStreak: number; lastStudyDay: string | null; dailyGoal: number },
  now: Date,
): LearningStats {
  const from = periodStart(period, now);
  const today = startOfUtcDay(now).getTime();
  const correct = reviews.filter((r) => r.correct).length;
  const todayCount = reviews.filter((r) => r.reviewedAt.getTime() >= today).length;
  const first = reviews.reduce<Date | undefined>(
    (min, r) => (!min || r.reviewedAt < min ? r.reviewedAt : min),
    undefined,
  );
  const dates = buckets(period, from, now, first);
  const byDay = period === 'today' || period === 'week' || period === 'month';
  const counts = new Map<string, number>();
  for (const r of reviews) {
    const k = byDay ? utcDay(r.reviewedAt) : monthKey(r.reviewedAt);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return {
    period,
    from: from ?? null,
    // the end of today, not the moment of the request: the same facts give the same answer (and ETag)
    to: new Date(addDays(startOfUtcDay(now), 1).getTime() - 1),
    cardsReviewed: new Set(reviews.map((r) => r.cardId)).size,
    reviews: reviews.length,
    cardsLearned: reviews.filter((r) => r.firstReview).length,
    cardsMastered: reviews.filter((r) => r.becameMastered).length,
    studyTime: Math.round(reviews.reduce((s, r) => s + r.responseTimeMs, 0) / 60_000),
    accuracy: reviews.length === 0 ? 0 : Math.round((correct / reviews.length) * 100),
    streak: visibleStreak(profile, utcDay(now)),
    longestStreak: profile.longestStreak,
    dailyGoal: profile.dailyGoal,
    dailyGoalProgress: Math.min(100, Math.round((todayCount / Math.max(1, profile.dailyGoal)) * 100)),
    chart: { dates, values: dates.map((d) => counts.get(d) ?? 0) },
  };
}

/** XP of a session: 10 per right answer, 2 per wrong one (trying counts too). */
export const sessionXp = (correct: number, wrong: number) => correct * 10 + wrong * 2;
