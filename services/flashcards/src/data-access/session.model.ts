import { type Connection, type Model, Schema } from 'mongoose';

export interface SessionResult {
  duration: number;
  cardsStudied: number;
  accuracy: number;
  xpEarned: number;
  achievements: string[];
}

/** A Group C learning session: started with a mode, ended once. */
export interface SessionDoc {
  _id: string;
  userId: string;
  mode: string;
  setId: string | null;
  cardIds: string[];
  startedAt: Date;
  endedAt: Date | null;
  result: SessionResult | null;
}

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
