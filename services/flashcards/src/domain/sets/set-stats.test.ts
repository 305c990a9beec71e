import { orderSets, setStats } from './set-stats';

const now = new Date('2026-05-10T00:00:00Z');
describe('set stats and ordering', () => {
  it('When a set has cards, Then totals, mastered, due and the average mastery as progress', () => {
    expect(
      setStats(
        [
          { masteryLevel: 90, nextReviewDate: now },
          { masteryLevel: 10, nextReviewDate: new Date('2026-06-01') },
        ],
        now,
      ),
    ).toEqual({
      totalCards: 2,
      masteredCards: 1,
      dueCards: 1,
      progress: 50,
    });
    expect(setStats([], now).progress).toBe(0);
  });
  it('When ordering, Then by the chosen key and direction, ties by name', () => {
    const s = (name: string, progress: number, t: number) => ({
      name,
      createdAt: new Date(t),
      updatedAt: new Date(t),
      stats: { totalCards: 0, masteredCards: 0, dueCards: 0, progress },
    });
    const sets = [s('b', 10, 2), s('A', 10, 1), s('c', 90, 3)];
    expect(orderSets(sets, 'name', 'asc').map((x) => x.name)).toEqual(['A', 'b', 'c']);
    expect(orderSets(sets, 'progress', 'desc').map((x) => x.name)).toEqual(['c', 'A', 'b']);
    expect(orderSets(sets, 'created', 'asc').map((x) => x.name)).toEqual(['A', 'b', 'c']);
  });
});
