import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { type RunningConsumer, startDurableConsumer } from '@lingua/events';
import { silentLogger, type TestClock, uniqueName, waitFor } from '@lingua/testing';
import { achievementClaimModel, achievementUnlockModel } from '../src/data-access/achievement.model';
import { learningProfileModel } from '../src/data-access/learning-profile.model';
import { reviewModel } from '../src/data-access/review.model';
import { call, clientFor, startFlashcards, stopFlashcards, tokenFor } from './support';

// the machine is shared and often loaded: generous per-test time, no timing assertions
jest.setTimeout(120_000);
let service: RunningService;
let clock: TestClock;
let recorder: RunningConsumer;
const events: AnyDomainEvent[] = [];

beforeAll(async () => {
  ({ service, clock } = await startFlashcards({}, '2026-05-10T08:00:00Z'));
  recorder = await startDurableConsumer(service.deps.nats, service.deps.bus, {
    durable: uniqueName('recorder'),
    events: '*',
    logger: silentLogger(),
    handler: async (e) => void events.push(e),
  });
}, 60_000);
afterAll(async () => {
  await recorder?.stop();
  await stopFlashcards(service);
});

const conn = () => service.deps.mongo.connection;

/** Learning history as part 1 records it: review log entries and the profile's streak and study XP. */
async function seedProgress(
  userId: string,
  p: { reviews: number; learned: number; streak: number; xp?: number },
) {
  const now = clock.now();
  const docs = Array.from({ length: p.reviews }, (_, i) => ({
    _id: randomUUID(),
    userId,
    cardId: `card-${i}`,
    setId: null,
    sessionId: null,
    algorithm: 'exponential',
    grade: 'good',
    rating: 2,
    correct: true,
    responseTimeMs: 1000,
    mode: null,
    intervalDays: 1,
    masteryLevel: 20,
    firstReview: i < p.learned,
    becameMastered: false,
    reviewedAt: now,
  }));
  if (docs.length) await reviewModel(conn()).collection.insertMany(docs as never[]);
  await learningProfileModel(conn()).collection.updateOne(
    { _id: userId as never },
    {
      $set: {
        currentStreak: p.streak,
        longestStreak: p.streak,
        lastStudyDay: now.toISOString().slice(0, 10),
        xp: p.xp ?? 0,
        updatedAt: now,
      },
    },
    { upsert: true },
  );
}

const unlockEvents = (userId: string) =>
  events.filter(
    (e) => e.event === 'achievement.unlocked' && (e.data as { userId: string }).userId === userId,
  );

/** Everything published before this point has reached the recorder once a sentinel published after it arrives. */
async function drainEvents() {
  await service.deps.outbox.flush();
  // an event of the recorder's stream (card.reviewed has a stream of its own)
  const sentinel = makeEvent('achievement.unlocked', {
    userId: `sentinel-${randomUUID()}`,
    achievementId: 'sentinel',
    name: 'sentinel',
    xp: 0,
  });
  await service.deps.publisher.publish(sentinel);
  await waitFor(() => expect(events.some((e) => e.id === sentinel.id)).toBe(true), { timeoutMs: 60_000 });
}

describe('GET /api/achievements', () => {
  it('When a new user asks, Then nothing is unlocked and every catalogue entry is locked with zero progress', async () => {
    const { auth } = tokenFor(service, clock);
    const res = await clientFor(service, auth)('GET', '/api/achievements');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: { unlocked: [], recent: [] },
      meta: { requestId: expect.any(String) },
    });
    expect(res.body.data.locked.length).toBeGreaterThanOrEqual(15);
    expect(res.body.data.locked[0]).toMatchObject({
      unlocked: false,
      claimed: false,
      progress: { current: 0, percent: 0 },
    });
  });

  it('When progress reaches thresholds, Then those achievements are unlocked (recent too) and each is announced exactly once', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedProgress(sub, { reviews: 12, learned: 10, streak: 3 });
    const get = () => clientFor(service, auth)('GET', '/api/achievements');

    // concurrent evaluations race for the same unlocks
    const replies = await Promise.all([get(), get(), get(), get(), get()]);

    const expected = ['cards_learned_1', 'cards_learned_10', 'reviews_10', 'streak_3'];
    for (const res of replies) {
      expect(res.status).toBe(200);
      expect(res.body.data.unlocked.map((a: { id: string }) => a.id).sort()).toEqual(expected);
    }
    const board = (await get()).body.data;
    expect(board.recent.map((a: { id: string }) => a.id).sort()).toEqual(expected);
    expect(board.unlocked[0]).toMatchObject({
      unlocked: true,
      claimed: false,
      unlockedAt: '2026-05-10T08:00:00.000Z',
    });
    expect(board.locked.find((a: { id: string }) => a.id === 'streak_7')).toMatchObject({
      progress: { current: 3, target: 7, percent: 42 },
    });

    await waitFor(() => expect(unlockEvents(sub)).toHaveLength(4), { timeoutMs: 60_000 });
    await drainEvents();
    expect(
      unlockEvents(sub)
        .map((e) => (e.data as { achievementId: string }).achievementId)
        .sort(),
    ).toEqual(expected);
    expect(
      unlockEvents(sub).find((e) => (e.data as { achievementId: string }).achievementId === 'streak_3')?.data,
    ).toEqual({
      userId: sub,
      achievementId: 'streak_3',
      name: 'Warming Up',
      xp: 30,
    });
    const stored = await achievementUnlockModel(conn()).collection.find({ userId: sub }).toArray();
    expect(stored).toHaveLength(4);
    for (const doc of stored) expect(doc._outbox).toEqual([]);
  });

  it('When a card is reviewed for the first time, Then the review unlocks "First Steps" without asking the board', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const api = clientFor(service, auth);
    const created = await api('POST', '/api/flashcards', {
      word: 'Apfel',
      translation: 'apple',
      definition: 'a fruit',
    });
    expect(created.status).toBe(200);
    const reviewed = await api('POST', `/api/flashcards/${created.body.data.id}/review`, { confidence: 2 });
    expect(reviewed.status).toBe(200);

    await waitFor(
      () =>
        expect(unlockEvents(sub).map((e) => (e.data as { achievementId: string }).achievementId)).toEqual([
          'cards_learned_1',
        ]),
      {
        timeoutMs: 60_000,
      },
    );
    const stored = await achievementUnlockModel(conn()).find({ userId: sub }).lean();
    expect(stored.map((u) => u.achievementId)).toEqual(['cards_learned_1']);
  });

  it('When there is no token, Then 401 AUTH003', async () => {
    const res = await call(service, 'GET', '/api/achievements');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH003');
  });
});

describe('POST /api/achievements/:achievementId/claim', () => {
  it('When an unlocked achievement is claimed, Then its XP is added to the total, a level-up is reported, and a second claim is 409', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedProgress(sub, { reviews: 1, learned: 1, streak: 1, xp: 95 });
    const api = clientFor(service, auth);
    await api('GET', '/api/achievements');

    const res = await api('POST', '/api/achievements/cards_learned_1/claim');

    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      achievementId: 'cards_learned_1',
      xpEarned: 10,
      totalXp: 105,
      level: 2,
      newLevel: 2,
    });
    const again = await api('POST', '/api/achievements/cards_learned_1/claim');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('RES002');
    const board = (await api('GET', '/api/achievements')).body.data;
    expect(board.unlocked[0]).toMatchObject({
      id: 'cards_learned_1',
      claimed: true,
      claimedAt: '2026-05-10T08:00:00.000Z',
    });
  });

  it('When a claim does not raise the level, Then newLevel is absent', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedProgress(sub, { reviews: 1, learned: 1, streak: 1, xp: 0 });
    const api = clientFor(service, auth);
    await api('GET', '/api/achievements');
    const res = await api('POST', '/api/achievements/cards_learned_1/claim');
    expect(res.body.data).toEqual({ achievementId: 'cards_learned_1', xpEarned: 10, totalXp: 10, level: 1 });
  });

  it('When the same achievement is claimed concurrently, Then exactly one claim earns the XP', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedProgress(sub, { reviews: 10, learned: 0, streak: 0 });
    const api = clientFor(service, auth);
    await api('GET', '/api/achievements');

    const replies = await Promise.all(
      Array.from({ length: 6 }, () => api('POST', '/api/achievements/reviews_10/claim')),
    );

    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const claims = await achievementClaimModel(conn()).find({ userId: sub }).lean();
    expect(claims.map((c) => [c.achievementId, c.xp])).toEqual([['reviews_10', 20]]);
    const total = await api('POST', '/api/achievements/reviews_10/claim');
    expect(total.status).toBe(409);
  });

  it('When a locked achievement is claimed, Then 409 and nothing is credited', async () => {
    const { sub, auth } = tokenFor(service, clock);
    const res = await clientFor(service, auth)('POST', '/api/achievements/streak_100/claim');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'RES002', message: 'Achievement is not unlocked yet' });
    expect(await achievementClaimModel(conn()).countDocuments({ userId: sub })).toBe(0);
  });

  it.each([
    ['an unknown id', 404, 'RES001', 'no_such_thing'],
    ['an id with forbidden characters', 400, 'VAL001', 'streak_3.claimedAt'],
    ['an operator-like id', 400, 'VAL001', '$where'],
    ['an overlong id', 400, 'VAL001', 'a'.repeat(65)],
  ])('When the claim names %s, Then %i %s', async (_n, status, code, id) => {
    const { auth } = tokenFor(service, clock);
    const res = await clientFor(service, auth)('POST', `/api/achievements/${encodeURIComponent(id)}/claim`);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('When there is no token, Then 401', async () => {
    expect((await call(service, 'POST', '/api/achievements/streak_3/claim')).status).toBe(401);
  });
});

describe('user.deleted', () => {
  it('When the user is deleted, Then their achievements are erased', async () => {
    const { sub, auth } = tokenFor(service, clock);
    await seedProgress(sub, { reviews: 1, learned: 1, streak: 1 });
    await clientFor(service, auth)('GET', '/api/achievements');
    await clientFor(service, auth)('POST', '/api/achievements/cards_learned_1/claim');
    expect(await achievementUnlockModel(conn()).countDocuments({ userId: sub })).toBe(1);
    expect(await achievementClaimModel(conn()).countDocuments({ userId: sub })).toBe(1);

    await service.deps.publisher.publish(makeEvent('user.deleted', { userId: sub }));

    await waitFor(
      async () => {
        expect(await achievementUnlockModel(conn()).countDocuments({ userId: sub })).toBe(0);
        expect(await achievementClaimModel(conn()).countDocuments({ userId: sub })).toBe(0);
      },
      { timeoutMs: 60_000 },
    );
  });
});
