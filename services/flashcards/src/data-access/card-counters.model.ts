import { type Connection, type Model, Schema } from 'mongoose';

/**
 * One document per user: counters over the user's active cards, changed with `$inc` by every card
 * write, so card statistics are read, not aggregated. Absent for users without cards and for data
 * older than the counters (rebuilt from a count on the first read).
 */
export interface CardCountersDoc {
  _id: string; // the user id
  total: number;
  mastered: number;
  favorite: number;
  /** Bumped by every change: a rebuild stores its count only if nothing changed while it counted. */
  version: number;
  /** false while a rebuild counts (its figures are not to be read yet). */
  ready: boolean;
  /** When the cards were counted: counters older than FLASHCARDS_CARD_COUNTERS_MAX_AGE_S are recounted. */
  countedAt?: Date;
}

const schema = new Schema<CardCountersDoc>(
  {
    _id: { type: String, required: true },
    total: { type: Number, default: 0 },
    mastered: { type: Number, default: 0 },
    favorite: { type: Number, default: 0 },
    version: { type: Number, default: 0 },
    ready: { type: Boolean, default: false },
    countedAt: { type: Date },
  },
  // read and written by `_id` only: no further index
  { collection: 'card_counters', versionKey: false },
);

export function cardCountersModel(connection: Connection): Model<CardCountersDoc> {
  return (
    (connection.models.CardCounters as Model<CardCountersDoc> | undefined) ??
    connection.model<CardCountersDoc>('CardCounters', schema)
  );
}
