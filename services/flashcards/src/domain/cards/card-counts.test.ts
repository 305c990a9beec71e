import { countsDelta, countsOf, sumCounts, touchesCounts } from './card-counts';

const card = (over: Partial<{ isArchived: boolean; isFavorite: boolean; masteryLevel: number }> = {}) => ({
  isArchived: false,
  isFavorite: false,
  masteryLevel: 0,
  ...over,
});

describe('card counts', () => {
  it('When a card is active, Then it counts once, as mastered from 80 and as favourite when marked; archived or absent counts nothing', () => {
    expect(countsOf(card())).toEqual({ total: 1, mastered: 0, favorite: 0 });
    expect(countsOf(card({ masteryLevel: 79, isFavorite: true }))).toEqual({
      total: 1,
      mastered: 0,
      favorite: 1,
    });
    expect(countsOf(card({ masteryLevel: 80 }))).toEqual({ total: 1, mastered: 1, favorite: 0 });
    expect(countsOf(card({ isArchived: true, masteryLevel: 100, isFavorite: true }))).toEqual({
      total: 0,
      mastered: 0,
      favorite: 0,
    });
    expect(countsOf(null)).toEqual({ total: 0, mastered: 0, favorite: 0 });
  });

  it('When a card changes, Then the delta is after minus before: create, favourite, mastery either way, archive', () => {
    expect(countsDelta(null, card({ masteryLevel: 90 }))).toEqual({ total: 1, mastered: 1, favorite: 0 });
    expect(countsDelta(card(), card({ isFavorite: true }))).toEqual({ total: 0, mastered: 0, favorite: 1 });
    expect(countsDelta(card({ masteryLevel: 75 }), card({ masteryLevel: 95 }))).toEqual({
      total: 0,
      mastered: 1,
      favorite: 0,
    });
    expect(countsDelta(card({ masteryLevel: 85 }), card({ masteryLevel: 65 }))).toEqual({
      total: 0,
      mastered: -1,
      favorite: 0,
    });
    expect(countsDelta(card({ masteryLevel: 30 }), card({ masteryLevel: 45 }))).toEqual({
      total: 0,
      mastered: 0,
      favorite: 0,
    });
    const both = card({ masteryLevel: 100, isFavorite: true });
    expect(countsDelta(both, { ...both, isArchived: true })).toEqual({
      total: -1,
      mastered: -1,
      favorite: -1,
    });
  });

  it('When cards are summed or a $set is checked, Then the sum counts each active card and only counted fields matter', () => {
    expect(
      sumCounts([card(), card({ isFavorite: true }), card({ masteryLevel: 80 }), card({ isArchived: true })]),
    ).toEqual({ total: 3, mastered: 1, favorite: 1 });
    expect(touchesCounts({ word: 'x', updatedAt: new Date() })).toBe(false);
    expect(touchesCounts({ isFavorite: true })).toBe(true);
    expect(touchesCounts({ masteryLevel: 10 })).toBe(true);
    expect(touchesCounts({ isArchived: true })).toBe(true);
  });
});
