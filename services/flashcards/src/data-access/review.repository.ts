import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { ReviewRecord, ReviewRepository } from '../domain/ports';
import { type ReviewDoc, reviewModel } from './review.model';

export type { ReviewRecord, ReviewRepository };

/** Reviews read per stats request; beyond it the figures are computed over the most recent ones. */
export const MAX_REVIEWS_PER_QUERY = 50_000;

export function reviewRepository(connection: Connection): ReviewRepository {
  const Reviews = reviewModel(connection);
  return {
    async insert(review: ReviewRecord): Promise<boolean> {
      const { id, ...rest } = review;
      try {
        await Reviews.collection.insertOne({ _id: id, ...rest } as never);
        return true;
      } catch (err) {
        // the review's id is deterministic: a retry or a recovery of a review already logged
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /** Reviews of the user in [from, to), optionally of one set, with the fields stats need. */
    async between(userId: string, from: Date | undefined, to: Date, setId?: string) {
      return Reviews.find({
        userId,
        reviewedAt: { ...(from && { $gte: from }), $lt: to },
        ...(setId && { setId }),
      })
        .sort({ reviewedAt: -1 })
        .limit(MAX_REVIEWS_PER_QUERY)
        .select({
          correct: 1,
          responseTimeMs: 1,
          firstReview: 1,
          becameMastered: 1,
          reviewedAt: 1,
          cardId: 1,
        })
        .lean<
          Pick<
            ReviewDoc,
            'correct' | 'responseTimeMs' | 'firstReview' | 'becameMastered' | 'reviewedAt' | 'cardId'
          >[]
        >();
    },
    async countBetween(userId: string, from: Date, to: Date, cap: number) {
      return Reviews.countDocuments({ userId, reviewedAt: { $gte: from, $lt: to } }, { limit: cap });
    },
    async countUpTo(userId: string, what: 'reviews' | 'firstReviews', cap?: number) {
      const filter = what === 'reviews' ? { userId } : { userId, firstReview: true };
      return Reviews.countDocuments(filter, cap === undefined ? {} : { limit: cap });
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Reviews.deleteMany({ userId })).deletedCount;
    },
  };
}
