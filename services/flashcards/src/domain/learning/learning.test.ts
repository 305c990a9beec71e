import { learningStats, periodStart, sessionXp } from './stats';
import { nextStreak, visibleStreak } from './streak';

const now = new Date('2026-05-10T15:00:00Z');
const at = (
  iso: string,
  extra: Partial<{ correct: boolean; firstReview: boolean; becameMastered: boolean; cardId: string }> = {},
) => ({
  cardId: 'c',
  correct: true,
  responseTimeMs: 30_000,
  firstReview: false,
  becameMastered: false,
  reviewedAt: new Date(iso),
  ...extra,
});
const profile = { currentStreak: 3, longestStreak: 5, lastStudyDay: '2026-05-10', dailyGoal: 10 };

describe('streak', () => {
  it('When study days follow each other, Then the streak grows; a gap resets it to 1; the same day changes nothing', () => {
    const p = { currentStreak: 2, longestStreak: 2, lastStudyDay: '2026-05-09' };
    expect(nextStreak(p, '2026-05-10')).toEqual({ currentStreak: 3, longestStreak: 3 });
    expect(nextStreak(p, '2026-05-09')).toEqual({ currentStreak: 2, longestStreak: 2 });
    expect(nextStreak(p, '2026-05-12')).toEqual({ currentStreak: 1, longestStreak: 2 });
    expect(nextStreak({ currentStreak: 0, longestStreak: 0, lastStudyDay: null }, '2026-05-12')).toEqual({
      currentStreak: 1,
      longestStreak: 1,
    });
  });
  it('When a whole day passes without study, Then the visible streak is 0', () => {
    expect(visibleStreak({ currentStreak: 4, lastStudyDay: '2026-05-09' }, '2026-05-10')).toBe(4);
    expect(visibleStreak({ currentStreak: 4, lastStudyDay: '2026-05-08' }, '2026-05-10')).toBe(0);
  });
});

describe('learning stats', () => {
  it('When reviews span days, Then figures and a daily chart for the week', () => {
    const s = learningStats(
      'week',
      [
        at('2026-05-10T10:00:00Z', { cardId: 'a', firstReview: true }),
        at('2026-05-10T11:00:00Z', { cardId: 'b', correct: false }),
        at('2026-05-08T11:00:00Z', { cardId: 'a', becameMastered: true }),
      ],
      profile,
      now,
      'UTC',
    );
    expect(s).toMatchObject({
      cardsReviewed: 2,
      reviews: 3,
      cardsLearned: 1,
      cardsMastered: 1,
      studyTime: 2,
      accuracy: 67,
      streak: 3,
      dailyGoalProgress: 20,
    });
    expect(s.chart.dates).toEqual([
      '2026-05-04',
      '2026-05-05',
      '2026-05-06',
      '2026-05-07',
      '2026-05-08',
      '2026-05-09',
      '2026-05-10',
    ]);
    expect(s.chart.values).toEqual([0, 0, 0, 0, 1, 0, 2]);
  });
  it('When the period is a year or all time, Then the chart is monthly', () => {
    const y = learningStats('year', [at('2025-07-01T00:00:00Z')], profile, now, 'UTC');
    expect(y.chart.dates).toHaveLength(12);
    expect(y.chart.dates[0]).toBe('2025-06');
    expect(y.chart.values[1]).toBe(1);
    const all = learningStats('all', [at('2026-03-15T00:00:00Z')], profile, now, 'UTC');
    expect(all.chart).toEqual({ dates: ['2026-03', '2026-04', '2026-05'], values: [1, 0, 0] });
    expect(learningStats('all', [], profile, now, 'UTC')).toMatchObject({
      accuracy: 0,
      chart: { dates: ['2026-05'], values: [0] },
    });
  });
  it('When periods start, Then today, 7 days, 30 days, 12 months or none', () => {
    expect(periodStart('today', now, 'UTC')?.toISOString()).toBe('2026-05-10T00:00:00.000Z');
    expect(periodStart('month', now, 'UTC')?.toISOString()).toBe('2026-04-11T00:00:00.000Z');
    expect(periodStart('all', now, 'UTC')).toBeUndefined();
    expect(sessionXp(3, 2)).toBe(34);
  });
});
