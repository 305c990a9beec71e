import { type Connection, type Model, Schema } from 'mongoose';
import type { LearningSession, SessionResult } from '../domain/ports';

export type { SessionResult };

/** A Group C learning session: started with a mode, ended once. */
export type SessionDoc = Omit<LearningSession, 'id'> & { _id: string };

const schema = new Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    mode: { type: String, required: true },
    setId: { type: String, default: null },
    cardIds: { type: [String], default: [] },
    startedAt: { type: Date, required: true },
    endedAt: { type: Date, default: null },
    result: { type: Object, default: null },
  },
  { collection: 'learning_sessions', versionKey: false },
);

export function sessionModel(connection: Connection): Model<SessionDoc> {
  return (
    (connection.models.LearningSession as Model<SessionDoc> | undefined) ??
    connection.model<SessionDoc>('LearningSession', schema)
  );
}
