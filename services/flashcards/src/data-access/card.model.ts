import { type Connection, type Model, Schema } from 'mongoose';
import type { Card } from '../domain/ports';
import { outboxFields } from '@lingua/events';

/** The cards collection (also named in outbox hints). */
export const CARDS_COLLECTION = 'cards';

/**
 * One card model for both API faces: Group B cards have `setId: null`, Group C cards belong to a set.
 * `synonyms` is JSON text (spec: "stored as JSON text"); `wordKey` is the lower-cased word for the
 * case-insensitive duplicate check.
 */
export type CardDoc = Omit<Card, 'id'> & { _id: string };

const schema = new Schema<CardDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    setId: { type: String, default: null },
    word: { type: String, required: true },
    wordKey: { type: String, required: true },
    translation: { type: String, required: true },
    definition: { type: String, default: '' },
    partOfSpeech: { type: String, default: null },
    pronunciation: { type: String, default: null },
    example: { type: String, default: null },
    exampleTranslation: { type: String, default: null },
    synonyms: { type: String, default: '[]' },
    tags: { type: [String], default: [] },
    difficultyLevel: { type: String, default: null },
    difficulty: { type: String, default: null },
    masteryLevel: { type: Number, default: 0 },
    timesReviewed: { type: Number, default: 0 },
    timesCorrect: { type: Number, default: 0 },
    isFavorite: { type: Boolean, default: false },
    isArchived: { type: Boolean, default: false },
    easinessFactor: { type: Number, default: 2.5 },
    repetitions: { type: Number, default: 0 },
    intervalDays: { type: Number, default: 1 },
    lastReviewedAt: { type: Date, default: null },
    nextReviewDate: { type: Date, required: true },
    fsrs: { type: Object, default: null },
    filledQuestionText: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    ...outboxFields,
    // the write version, `$inc`ed by every update (card.repository.ts): orders the due read model's writes
    ...{ _rev: { type: Number, select: false } },
    // the card's last review {id, timesReviewed, correct}, written with it: answers a retry of that review
    ...{ _lastReview: { type: Object, select: false } },
  },
  { collection: CARDS_COLLECTION, versionKey: false, timestamps: false },
);

export function cardModel(connection: Connection): Model<CardDoc> {
  return (connection.models.Card as Model<CardDoc> | undefined) ?? connection.model<CardDoc>('Card', schema);
}
