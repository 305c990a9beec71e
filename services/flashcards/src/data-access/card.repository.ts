import type { Connection } from 'mongoose';
import type { CardCounter } from '../domain/card-stats.use-case';

/** Counts over the cards collection (archived cards never count). */
export function cardCounter(connection: Connection): CardCounter {
  const cards = connection.collection('cards');
  return {
    count: ({ userId, dueBefore, minMastery, favorite }) =>
      cards.countDocuments({
        userId,
        isArchived: { $ne: true },
        ...(dueBefore && { nextReviewDate: { $lte: dueBefore } }),
        ...(minMastery !== undefined && { masteryLevel: { $gte: minMastery } }),
        ...(favorite !== undefined && { isFavorite: favorite }),
      }),
  };
}
