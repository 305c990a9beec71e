import { type Connection, type Model, Schema } from 'mongoose';
import type { ReviewRecord } from '../domain/ports';

/** One answered review: the append-only log behind learning stats (and a later algorithm switch). */
export type ReviewDoc = Omit<ReviewRecord, 'id'> & { _id: string };

const schema = new Schema<ReviewDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    cardId: { type: String, required: true },
    setId: { type: String, default: null },
    sessionId: { type: String, default: null },
    algorithm: { type: String, required: true },
    grade: { type: String, required: true },
    rating: { type: Number, required: true },
    correct: { type: Boolean, required: true },
    responseTimeMs: { type: Number, default: 0 },
    mode: { type: String, default: null },
    intervalDays: { type: Number, required: true },
    masteryLevel: { type: Number, required: true },
    firstReview: { type: Boolean, required: true },
    becameMastered: { type: Boolean, required: true },
    reviewedAt: { type: Date, required: true },
  },
  { collection: 'reviews', versionKey: false },
);

export function reviewModel(connection: Connection): Model<ReviewDoc> {
  return (
    (connection.models.Review as Model<ReviewDoc> | undefined) ??
    connection.model<ReviewDoc>('Review', schema)
  );
}
