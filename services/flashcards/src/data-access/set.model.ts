import { type Connection, type Model, Schema } from 'mongoose';
import type { CardSet } from '../domain/ports';

/** A Group C card set (deck). */
export type SetDoc = Omit<CardSet, 'id'> & { _id: string };

const schema = new Schema<SetDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    color: { type: String, default: null },
    tags: { type: [String], default: [] },
    isPublic: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'card_sets', versionKey: false },
);

export function setModel(connection: Connection): Model<SetDoc> {
  return (
    (connection.models.CardSet as Model<SetDoc> | undefined) ?? connection.model<SetDoc>('CardSet', schema)
  );
}
