import { MASTERED_AT } from '../scheduling/mastery';

/** A user's counters over their active (non-archived) cards. */
export interface CardCounts {
  total: number;
  mastered: number;
  favorite: number;
}

/** The fields of a card that decide what it adds to its owner's counters. */
export interface CountedFields {
  isArchived: boolean;
  isFavorite: boolean;
  masteryLevel: number;
}

/** A write that sets any of these may change the counters. */
export const COUNTED_FIELDS = ['isArchived', 'isFavorite', 'masteryLevel'] as const;

export const NO_COUNTS: CardCounts = Object.freeze({ total: 0, mastered: 0, favorite: 0 });

/** What one card adds to the counters: nothing when archived or absent (null). Pure. */
export function countsOf(card: CountedFields | null): CardCounts {
  if (!card || card.isArchived) return NO_COUNTS;
  return {
    total: 1,
    mastered: card.masteryLevel >= MASTERED_AT ? 1 : 0,
    favorite: card.isFavorite ? 1 : 0,
  };
}

export function addCounts(a: CardCounts, b: CardCounts): CardCounts {
  return { total: a.total + b.total, mastered: a.mastered + b.mastered, favorite: a.favorite + b.favorite };
}

export const negateCounts = (c: CardCounts): CardCounts => ({
  total: -c.total,
  mastered: -c.mastered,
  favorite: -c.favorite,
});

/** The change to the counters when a card goes from `before` to `after` (null: absent). Pure. */
export const countsDelta = (before: CountedFields | null, after: CountedFields | null): CardCounts =>
  addCounts(countsOf(after), negateCounts(countsOf(before)));

/** What these cards add together. Pure. */
export const sumCounts = (cards: readonly CountedFields[]): CardCounts =>
  cards.reduce((sum, c) => addCounts(sum, countsOf(c)), NO_COUNTS);

export const isNoChange = (c: CardCounts) => c.total === 0 && c.mastered === 0 && c.favorite === 0;

/** Whether a `$set` on cards may change the counters. Pure. */
export const touchesCounts = (set: object) => COUNTED_FIELDS.some((f) => f in set);
