import { exponentialScheduler } from './exponential.scheduler';
import { fsrsScheduler } from './fsrs.scheduler';
import { gradeFromConfidence, gradeFromRating, type Grade } from './grade';
import { MASTERED_AT, nextMastery } from './mastery';
import { scheduleReview } from './schedule-review';
import { DAY_MS, type ScheduleState, type Scheduler } from './schedule-state';
import { sm2Scheduler } from './sm2.scheduler';

const T0 = new Date('2026-01-01T08:00:00Z');
const fresh = (): ScheduleState => ({
  easinessFactor: 2.5,
  repetitions: 0,
  intervalDays: 1,
  masteryLevel: 0,
  timesReviewed: 0,
  timesCorrect: 0,
  lastReviewedAt: null,
  nextReviewDate: T0,
  fsrs: null,
});

/** Runs grades through a scheduler, answering each time exactly when due; returns the intervals in days. */
function run(s: Scheduler, grades: Grade[]) {
  let state = fresh();
  let now = T0;
  const out: number[] = [];
  for (const g of grades) {
    const d = s.next(state, g, now);
    out.push((d.nextReviewDate.getTime() - now.getTime()) / DAY_MS);
    state = { ...state, ...d, lastReviewedAt: now };
    now = d.nextReviewDate;
  }
  return { intervals: out, state };
}

describe('grades', () => {
  it('When Group B confidences and Group C ratings are mapped, Then 0 and 1-2 are wrong, the rest right', () => {
    expect([0, 1, 2].map((c) => gradeFromConfidence(c as 0 | 1 | 2))).toEqual(['again', 'good', 'easy']);
    expect([1, 2, 3, 4, 5].map((r) => gradeFromRating(r as 1))).toEqual([
      'again',
      'again',
      'hard',
      'good',
      'easy',
    ]);
  });
});

describe('exponential (spec 2^n) scheduler', () => {
  it('When answers are right, Then the interval doubles: 2, 4, 8, 16 days', () => {
    expect(run(exponentialScheduler, ['good', 'good', 'easy', 'hard']).intervals).toEqual([2, 4, 8, 16]);
  });
  it('When an answer is wrong, Then n resets: the next interval is 1 day, then 2 again', () => {
    const r = run(exponentialScheduler, ['good', 'good', 'again', 'good']);
    expect(r.intervals).toEqual([2, 4, 1, 2]);
    expect(r.state.repetitions).toBe(1);
  });
  it('When n grows large, Then the interval is capped at a year and the ease stays within 1.3-3.0', () => {
    const r = run(exponentialScheduler, Array<Grade>(12).fill('easy'));
    expect(r.intervals.at(-1)).toBe(365);
    expect(r.state.easinessFactor).toBe(3);
    expect(run(exponentialScheduler, Array<Grade>(12).fill('again')).state.easinessFactor).toBe(1.3);
  });
});

describe('SM-2 scheduler', () => {
  it('When answers are good, Then intervals are 1, 6, then previous × EF', () => {
    expect(run(sm2Scheduler, ['good', 'good', 'good', 'good']).intervals).toEqual([1, 6, 15, 38]);
  });
  it('When answers are hard, Then EF falls (never below 1.3); a failure restarts at 1 day keeping EF', () => {
    const r = run(sm2Scheduler, ['hard', 'hard', 'hard']);
    expect(r.state.easinessFactor).toBe(2.08);
    const failed = sm2Scheduler.next(r.state, 'again', T0);
    expect(failed).toMatchObject({ repetitions: 0, intervalDays: 1, easinessFactor: 2.08 });
    expect(run(sm2Scheduler, Array<Grade>(20).fill('hard')).state.easinessFactor).toBe(1.3);
  });
});

describe('FSRS scheduler (ts-fsrs, no fuzz)', () => {
  it('When a new card is answered Good four times on time, Then 10 minutes, 2, 11 and 46 days', () => {
    const r = run(fsrsScheduler, ['good', 'good', 'good', 'good']);
    expect(r.intervals.map((d) => Math.round(d * 1440))).toEqual([10, 2 * 1440, 11 * 1440, 46 * 1440]);
    expect(r.state.fsrs).toMatchObject({ reps: 4, lapses: 0, state: 2 });
  });
  it('When the same history is replayed, Then the schedule is identical (deterministic)', () => {
    const grades: Grade[] = ['good', 'again', 'good', 'easy', 'hard'];
    expect(run(fsrsScheduler, grades)).toEqual(run(fsrsScheduler, grades));
  });
  it('When a review card is forgotten, Then it lapses and comes back within minutes', () => {
    const r = run(fsrsScheduler, ['good', 'good', 'good', 'again']);
    expect(r.state.fsrs?.lapses).toBe(1);
    expect(r.intervals.at(-1)! * 1440).toBeLessThan(60);
  });
});

describe('scheduleReview', () => {
  it('When a card is reviewed, Then counters, mastery and lastReviewedAt move with the algorithm interval', () => {
    const o = scheduleReview('exponential', fresh(), 'good', T0);
    expect(o).toMatchObject({ correct: true, firstReview: true, becameMastered: false });
    expect(o.state).toMatchObject({
      timesReviewed: 1,
      timesCorrect: 1,
      masteryLevel: 15,
      intervalDays: 2,
      lastReviewedAt: T0,
    });
    const wrong = scheduleReview('sm2', o.state, 'again', T0);
    expect(wrong).toMatchObject({ correct: false, firstReview: false });
    expect(wrong.state).toMatchObject({ timesReviewed: 2, timesCorrect: 1, masteryLevel: 0 });
  });
  it('When mastery crosses 80, Then becameMastered is set once', () => {
    const near = { ...fresh(), masteryLevel: 70, timesReviewed: 5 };
    expect(scheduleReview('exponential', near, 'easy', T0).becameMastered).toBe(true);
    expect(scheduleReview('exponential', { ...near, masteryLevel: 85 }, 'easy', T0).becameMastered).toBe(
      false,
    );
    expect(nextMastery(95, 'easy')).toBe(100);
    expect(nextMastery(10, 'again')).toBe(0);
    expect(MASTERED_AT).toBe(80);
  });
});

describe('early reviews', () => {
  const dueIn2Days = (): ScheduleState => ({
    ...fresh(),
    repetitions: 1,
    intervalDays: 2,
    masteryLevel: 15,
    timesReviewed: 1,
    timesCorrect: 1,
    lastReviewedAt: T0,
    nextReviewDate: new Date(T0.getTime() + 2 * DAY_MS),
  });

  it.each(['exponential', 'sm2'] as const)(
    'When a %s card not due for two days is answered easy four times in a row, Then its schedule and mastery stay where the due review left them',
    (algorithm) => {
      let state = dueIn2Days();
      for (let i = 0; i < 4; i++)
        state = scheduleReview(algorithm, state, 'easy', new Date(T0.getTime() + i)).state;
      expect(state).toMatchObject({
        repetitions: 1,
        intervalDays: 2,
        masteryLevel: 15,
        nextReviewDate: dueIn2Days().nextReviewDate,
        timesReviewed: 5, // each answer is still recorded
        timesCorrect: 5,
      });
    },
  );

  it('When the early answer is wrong, Then the card lapses as at any time', () => {
    const o = scheduleReview('exponential', dueIn2Days(), 'again', T0);
    expect(o.state).toMatchObject({ repetitions: 0, intervalDays: 1 });
  });

  it('When the card is due later the same day, Then the answer is a due review and earns its interval', () => {
    const state = { ...dueIn2Days(), nextReviewDate: new Date(T0.getTime() + 6 * 3_600_000) };
    expect(scheduleReview('exponential', state, 'good', T0).state.intervalDays).toBe(4);
  });

  it('When an FSRS card is reviewed early, Then it earns less than a review on its due day (FSRS counts the time elapsed)', () => {
    const learned = scheduleReview(
      'fsrs',
      scheduleReview('fsrs', fresh(), 'good', T0).state,
      'good',
      T0,
    ).state;
    const early = scheduleReview('fsrs', learned, 'good', new Date(T0.getTime() + 60_000)).state;
    const due = scheduleReview('fsrs', learned, 'good', learned.nextReviewDate).state;
    expect(early.intervalDays).toBeLessThan(due.intervalDays);
  });

  it('When ratings 3, 4 and 5 are given, Then SM-2 and FSRS tell them apart and the spec rule (2^n, right answers only) does not', () => {
    const afterTwo = (algorithm: 'exponential' | 'sm2' | 'fsrs', g: Grade) => {
      const first = scheduleReview(algorithm, fresh(), 'good', T0).state;
      const second = scheduleReview(algorithm, first, 'good', first.nextReviewDate).state;
      return scheduleReview(algorithm, second, g, second.nextReviewDate).state.intervalDays;
    };
    const [h, g, e] = (['hard', 'good', 'easy'] as const).map((x) => afterTwo('sm2', x));
    expect(h).toBeLessThan(g!);
    expect(g).toBeLessThan(e!);
    const fsrs = (['hard', 'good', 'easy'] as const).map((x) => afterTwo('fsrs', x));
    expect(new Set(fsrs).size).toBe(3);
    expect(new Set((['hard', 'good', 'easy'] as const).map((x) => afterTwo('exponential', x))).size).toBe(1);
  });
});
