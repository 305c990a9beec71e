import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { TestClock } from '@lingua/testing';
import { isolatedServiceEnv } from '@lingua/testing';
import { startService } from '@lingua/bootstrap';
import { loadServiceConfig } from '../src/config';
import { reviewModel } from '../src/data-access/review.model';
import { defineFlashcardsService } from '../src/start';
import { DAY, newUserClient, stopFlashcards } from './support';

let service: RunningService;
const clock = new TestClock('2026-03-10T09:00:00Z');
const activity: string[] = [];

beforeAll(async () => {
  const config = loadServiceConfig(isolatedServiceEnv());
  service = await startService(
    defineFlashcardsService(config, {
      clock,
      // stands in for part 2's achievements: records calls, unlocks one on the first call per user
      achievements: {
        onActivity: async (userId) => {
          const first = !activity.includes(userId);
          activity.push(userId);
          return first ? ['first-review'] : [];
        },
      },
    }),
  );
});
afterAll(() => stopFlashcards(service));

const newUser = () => newUserClient(service, clock);
type Api = ReturnType<typeof newUser>['api'];

async function setWithCards(api: Api, words: string[]) {
  const setId = (await api('POST', '/api/flashcard-sets', { name: `set-${randomUUID()}` })).body.data.set
    .id as string;
  const ids: string[] = [];
  for (const word of words) {
    ids.push(
      (await api('POST', '/api/flashcards', { setId, word, translation: `${word}-t` })).body.data.card.id,
    );
    clock.advance(1); // one after the other, as a user adds them (ties are ordered by id, not insertion)
  }
  return { setId, ids };
}

describe('Group C /api/learning/due and /review', () => {
  it('When cards are due, Then each comes with its learning record and totalDue counts all of them', async () => {
    const { api } = newUser();
    const { setId, ids } = await setWithCards(api, ['a', 'b', 'c']);
    await setWithCards(api, ['d']);
    const res = await api('GET', `/api/learning/due?setId=${setId}&limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.totalDue).toBe(3);
    expect(res.body.data.cards).toHaveLength(2);
    expect(res.body.data.cards[0]).toMatchObject({
      id: ids[0],
      learningRecord: { easeFactor: 2.5, interval: 1, repetitions: 0 },
    });
    expect((await api('GET', '/api/learning/due')).body.data.totalDue).toBe(4);
    expect((await api('GET', `/api/learning/due?setId=${randomUUID()}`)).status).toBe(404);
    expect((await api('GET', '/api/learning/due?limit=500')).status).toBe(400);
  });

  it('When the user keeps the default scheduler, Then the spec 2^n schedule applies to ratings (1-2 wrong, 3-5 right)', async () => {
    const { api } = newUser();
    const { ids } = await setWithCards(api, ['x']);
    const r1 = await api('POST', '/api/learning/review', {
      cardId: ids[0],
      rating: 4,
      responseTime: 3000,
      mode: 'flip',
    });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({
      interval: 2,
      easeFactor: 2.5,
      masteryLevel: 15,
      nextReviewDate: new Date(clock.now().getTime() + 2 * DAY).toISOString(),
      algorithm: 'exponential',
      achievements: ['first-review'],
    });
    const r2 = await api('POST', '/api/learning/review', { cardId: ids[0], rating: 2 });
    expect(r2.body.data).toMatchObject({ interval: 1, masteryLevel: 0, achievements: [] });
  });

  it('When the user chose SM-2, Then intervals go 1, 6, then × ease factor', async () => {
    const { api } = newUser();
    expect((await api('PUT', '/api/learning/settings', { algorithm: 'sm2' })).body.data).toMatchObject({
      algorithm: 'sm2',
    });
    const { ids } = await setWithCards(api, ['y']);
    const intervals: number[] = [];
    const eases: number[] = [];
    // each answer on the day the card falls due (an earlier one earns no interval)
    let waited = 0;
    try {
      for (let i = 0; i < 3; i++) {
        const r = await api('POST', '/api/learning/review', { cardId: ids[0], rating: 4 });
        intervals.push(r.body.data.interval);
        eases.push(r.body.data.easeFactor);
        clock.advance(r.body.data.interval * DAY);
        waited += r.body.data.interval * DAY;
      }
    } finally {
      clock.advance(-waited);
    }
    expect(intervals).toEqual([1, 6, 15]);
    expect(eases).toEqual([2.5, 2.5, 2.5]);
  });

  it('When the user chose FSRS, Then ts-fsrs schedules without fuzz: 10 minutes, then 2, 11 and 46 days for Good', async () => {
    const { api } = newUser();
    await api('PUT', '/api/learning/settings', { algorithm: 'fsrs' });
    const { ids } = await setWithCards(api, ['z']);
    const gaps: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = clock.now().getTime();
      const r = await api('POST', '/api/learning/review', { cardId: ids[0], rating: 4 });
      const due = new Date(r.body.data.nextReviewDate).getTime();
      gaps.push(due - before);
      clock.advance(due - before); // answer exactly when due
    }
    expect(gaps).toEqual([10 * 60_000, 2 * DAY, 11 * DAY, 46 * DAY]);
  });

  it('When review input is bad or the card is not the caller’s, Then 400 VAL001 / 404 RES001', async () => {
    const { api } = newUser();
    const { ids } = await setWithCards(api, ['q']);
    for (const body of [
      { cardId: ids[0], rating: 6 },
      { cardId: ids[0], rating: 0 },
      { cardId: ids[0], rating: 3, mode: 'guess' },
      { cardId: 'nope', rating: 3 },
      { cardId: ids[0], rating: 3, responseTime: -1 },
    ]) {
      const res = await api('POST', '/api/learning/review', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VAL001');
    }
    const foreign = await newUser().api('POST', '/api/learning/review', { cardId: ids[0], rating: 3 });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('RES001');
    expect((await api('PUT', '/api/learning/settings', { algorithm: 'leitner' })).status).toBe(400);
  });
});

describe('Group C /api/learning/stats', () => {
  it('When a user studies on consecutive days, Then stats give reviews, learned, accuracy, study time, streak, goal progress and a chart', async () => {
    const { api } = newUser();
    await api('PUT', '/api/learning/settings', { dailyGoal: 4 });
    const { ids } = await setWithCards(api, ['s1', 's2', 's3']);
    // day 1: two cards right
    await api('POST', '/api/learning/review', { cardId: ids[0], rating: 5, responseTime: 60_000 });
    await api('POST', '/api/learning/review', { cardId: ids[1], rating: 4, responseTime: 30_000 });
    clock.advance(DAY);
    // day 2: one right, one wrong
    await api('POST', '/api/learning/review', { cardId: ids[0], rating: 4, responseTime: 30_000 });
    await api('POST', '/api/learning/review', { cardId: ids[2], rating: 1, responseTime: 60_000 });

    const week = await api('GET', '/api/learning/stats?period=week');
    expect(week.status).toBe(200);
    const today = clock.now().toISOString().slice(0, 10);
    const yesterday = new Date(clock.now().getTime() - DAY).toISOString().slice(0, 10);
    expect(week.body.data).toMatchObject({
      period: 'week',
      cardsReviewed: 3,
      reviews: 4,
      cardsLearned: 3,
      cardsMastered: 0,
      studyTime: 3,
      accuracy: 75,
      streak: 2,
      dailyGoalProgress: 50,
    });
    expect(week.body.data.chart.dates).toHaveLength(7);
    expect(week.body.data.chart.dates.slice(-2)).toEqual([yesterday, today]);
    expect(week.body.data.chart.values.slice(-2)).toEqual([2, 2]);

    const todayStats = await api('GET', '/api/learning/stats?period=today');
    expect(todayStats.body.data).toMatchObject({
      reviews: 2,
      accuracy: 50,
      chart: { dates: [today], values: [2] },
    });

    clock.advance(2 * DAY); // a whole day without study breaks the streak
    expect((await api('GET', '/api/learning/stats?period=all')).body.data).toMatchObject({
      streak: 0,
      reviews: 4,
    });
    expect((await api('GET', '/api/learning/stats?period=decade')).status).toBe(400);
  });
});

describe('Group C /api/learning/session', () => {
  it('When a session is started, answered and ended, Then the result counts the session’s reviews, XP and achievements, once', async () => {
    const { api, sub } = newUser();
    const { setId, ids } = await setWithCards(api, ['m1', 'm2', 'm3']);
    const start = await api('POST', '/api/learning/session/start', { mode: 'review', setId });
    expect(start.status).toBe(201);
    expect(start.body.data).toMatchObject({ sessionId: expect.any(String), mode: 'review' });
    expect(start.body.data.cards.map((c: { id: string }) => c.id)).toEqual(ids);
    const { sessionId } = start.body.data;
    clock.advance(1000);
    await api('POST', '/api/learning/review', { cardId: ids[0], rating: 4, sessionId });
    await api('POST', '/api/learning/review', { cardId: ids[1], rating: 1, sessionId });
    clock.advance(119_000);
    const calls = activity.filter((u) => u === sub).length;
    const end = await api('POST', '/api/learning/session/end', { sessionId });
    expect(end.status).toBe(200);
    expect(end.body.data).toEqual({
      sessionId,
      duration: 120,
      cardsStudied: 2,
      accuracy: 50,
      xpEarned: 12,
      achievements: [],
    });
    expect(activity.filter((u) => u === sub).length).toBe(calls + 1);
    const again = await api('POST', '/api/learning/session/end', { sessionId });
    expect(again.body.data).toEqual(end.body.data);

    const learn = await api('POST', '/api/learning/session/start', { mode: 'learn', setId });
    expect(learn.body.data.cards.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    const cram = await api('POST', '/api/learning/session/start', { mode: 'cram', setId, limit: 1 });
    expect(cram.body.data.cards).toHaveLength(1);
  });

  it('When the session is unknown, foreign or the mode is bad, Then 404 / 400', async () => {
    const { api } = newUser();
    const start = await api('POST', '/api/learning/session/start', { mode: 'review' });
    expect(
      (await newUser().api('POST', '/api/learning/session/end', { sessionId: start.body.data.sessionId }))
        .status,
    ).toBe(404);
    expect((await api('POST', '/api/learning/session/end', { sessionId: randomUUID() })).status).toBe(404);
    expect((await api('POST', '/api/learning/session/start', { mode: 'binge' })).status).toBe(400);
  });

  it('When reviews are logged, Then each review is stored for the user with its flags', async () => {
    const { api, sub } = newUser();
    const { ids } = await setWithCards(api, ['log']);
    await api('POST', '/api/learning/review', {
      cardId: ids[0],
      rating: 3,
      responseTime: 1234,
      mode: 'typing',
    });
    const logged = await reviewModel(service.deps.mongo.connection).find({ userId: sub }).lean();
    expect(logged).toEqual([
      expect.objectContaining({
        cardId: ids[0],
        rating: 3,
        grade: 'hard',
        correct: true,
        responseTimeMs: 1234,
        mode: 'typing',
        firstReview: true,
      }),
    ]);
  });
});
