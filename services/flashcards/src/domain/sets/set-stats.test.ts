import { MASTERED_AT } from '../scheduling/mastery';
import { orderSets, setStats, setTallyRule } from './set-stats';

const now = new Date('2026-05-10T00:00:00Z');
describe('set stats and ordering', () => {
  it('When a set has a tally, Then its figures with the average mastery as progress; none is an empty set', () => {
    expect(setStats({ setId: 's', total: 3, mastered: 1, due: 2, masterySum: 199 })).toEqual({
      totalCards: 3,
      masteredCards: 1,
      dueCards: 2,
      progress: 66,
    });
    expect(setStats(undefined)).toEqual({ totalCards: 0, masteredCards: 0, dueCards: 0, progress: 0 });
  });
  it('When the rule is made, Then mastered from MASTERED_AT and due until the given instant', () => {
    expect(setTallyRule(now)).toEqual({ masteredAt: MASTERED_AT, dueAt: now });
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
