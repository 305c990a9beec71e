import { ACHIEVEMENTS, findAchievement } from '../src/domain/achievements/achievement-catalogue';
import {
  achievementBoard,
  levelForXp,
  newlyEarned,
  progressNeeded,
} from '../src/domain/achievements/achievement-rules';
import type { AchievementDeps } from '../src/domain/achievements/achievement-store';
import {
  evaluateAchievements,
  unlockEventId,
} from '../src/domain/achievements/evaluate-achievements.use-case';

describe('Achievement rules', () => {
  it('When progress reaches thresholds, Then exactly the earned and not yet unlocked achievements are returned', () => {
    const earned = newlyEarned({ streakDays: 7, cardsLearned: 10, totalReviews: 9 }, new Set(['streak_3']));
    expect(earned.map((a) => a.id)).toEqual(['streak_7', 'cards_learned_1', 'cards_learned_10']);
  });

  it('When some achievements are unlocked, Then the evaluation needs each category only up to its highest locked threshold', () => {
    expect(progressNeeded(new Set())).toEqual({ streak: 100, cards_learned: 1000, reviews: 5000 });
    const allReviews = ACHIEVEMENTS.filter((a) => a.category === 'reviews').map((a) => a.id);
    expect(progressNeeded(new Set([...allReviews, 'streak_100']))).toEqual({
      streak: 30,
      cards_learned: 1000,
    });
    expect(progressNeeded(new Set(ACHIEVEMENTS.map((a) => a.id)))).toEqual({});
  });

  it('When the evaluation runs, Then it reads only what can still unlock something, counts capped, the known streak not read again', async () => {
    const reads: string[] = [];
    const unlocked = new Set(ACHIEVEMENTS.filter((a) => a.category === 'reviews').map((a) => a.id));
    const deps: AchievementDeps = {
      store: {
        get: () => Promise.reject(new Error('the board read is not needed')),
        unlockedIds: async () => (reads.push('unlocks'), new Set(unlocked)),
        unlock: async (_u, id) => (reads.push(`unlock ${id}`), true),
        claim: () => Promise.reject(new Error('no claim')),
      },
      progressOf: async (_u, need, known) => {
        if (!need) throw new Error('the uncapped progress is not needed');
        reads.push(`progress ${JSON.stringify(need)} known ${JSON.stringify(known)}`);
        return { streakDays: known?.streakDays ?? 0, cardsLearned: 12, totalReviews: 0 };
      },
      studyXpOf: async () => 0,
      now: () => new Date('2026-11-27T00:00:00Z'),
      kickOutbox: () => reads.push('kick'),
    };
    const ids = await evaluateAchievements('u1', deps, { streakDays: 3 });
    expect(ids).toEqual(['streak_3', 'cards_learned_1', 'cards_learned_10']);
    expect(reads).toEqual([
      'unlocks',
      'progress {"streak":100,"cards_learned":1000} known {"streakDays":3}',
      'unlock streak_3',
      'unlock cards_learned_1',
      'unlock cards_learned_10',
      'kick',
    ]);
    // everything unlocked: one read, nothing else
    for (const a of ACHIEVEMENTS) unlocked.add(a.id);
    reads.length = 0;
    expect(await evaluateAchievements('u1', deps)).toEqual([]);
    expect(reads).toEqual(['unlocks']);
  });

  it('When nothing has been done, Then nothing is earned', () => {
    expect(newlyEarned({ streakDays: 0, cardsLearned: 0, totalReviews: 0 }, new Set())).toEqual([]);
  });

  it('When the catalogue is read, Then ids are unique, stable-looking and cover streaks, cards learned and reviews', () => {
    const ids = ACHIEVEMENTS.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9_]+$/);
    expect(new Set(ACHIEVEMENTS.map((a) => a.category))).toEqual(
      new Set(['streak', 'cards_learned', 'reviews']),
    );
    expect(findAchievement('reviews_100')?.threshold).toBe(100);
    expect(findAchievement('nope')).toBeUndefined();
  });

  it.each([
    [0, 1],
    [99, 1],
    [100, 2],
    [399, 2],
    [400, 3],
    [900, 4],
  ])('When the total XP is %i, Then the level is %i', (xp, level) => {
    expect(levelForXp(xp)).toBe(level);
  });

  it('When the board is built, Then unlocked are newest first, locked closest first, recent only the last 7 days', () => {
    const now = new Date('2026-05-20T12:00:00Z');
    const board = achievementBoard(
      { streakDays: 2, cardsLearned: 12, totalReviews: 40 },
      new Map([
        [
          'cards_learned_1',
          { unlockedAt: new Date('2026-05-01T00:00:00Z'), claimedAt: new Date('2026-05-02T00:00:00Z') },
        ],
        ['cards_learned_10', { unlockedAt: new Date('2026-05-19T00:00:00Z'), claimedAt: null }],
        ['reviews_10', { unlockedAt: new Date('2026-05-18T00:00:00Z'), claimedAt: null }],
      ]),
      now,
    );
    expect(board.unlocked.map((a) => a.id)).toEqual(['cards_learned_10', 'reviews_10', 'cards_learned_1']);
    expect(board.recent.map((a) => a.id)).toEqual(['cards_learned_10', 'reviews_10']);
    expect(board.unlocked[2]).toMatchObject({ claimed: true, claimedAt: '2026-05-02T00:00:00.000Z' });
    expect(board.locked[0]).toMatchObject({
      id: 'streak_3',
      progress: { current: 2, target: 3, percent: 66 },
    });
    expect(board.locked).toHaveLength(ACHIEVEMENTS.length - 3);
  });

  it('When the unlock event id is derived, Then it is a stable UUID per user and achievement', () => {
    expect(unlockEventId('u1', 'streak_3')).toBe(unlockEventId('u1', 'streak_3'));
    expect(unlockEventId('u1', 'streak_3')).not.toBe(unlockEventId('u2', 'streak_3'));
    expect(unlockEventId('u1', 'streak_3')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
