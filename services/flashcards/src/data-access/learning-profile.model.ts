import { type Connection, type Model, Schema } from 'mongoose';

/** Per-user learning settings and running totals (streak, XP), one document per user. */
export interface LearningProfileDoc {
  _id: string; // the user id
  algorithm: 'exponential' | 'sm2' | 'fsrs';
  dailyGoal: number;
  currentStreak: number;
  longestStreak: number;
  /** UTC day (YYYY-MM-DD) of the last review. */
  lastStudyDay: string | null;
  xp: number;
  updatedAt: Date;
}

const schema = new Schema<LearningProfileDoc>(
  {
    _id: { type: String, required: true },
    algorithm: { type: String, default: 'exponential' },
    dailyGoal: { type: Number, default: 20 },
    currentStreak: { type: Number, default: 0 },
    longestStreak: { type: Number, default: 0 },
    lastStudyDay: { type: String, default: null },
    xp: { type: Number, default: 0 },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'learning_profiles', versionKey: false },
);

export function learningProfileModel(connection: Connection): Model<LearningProfileDoc> {
  return (
    (connection.models.LearningProfile as Model<LearningProfileDoc> | undefined) ??
    connection.model<LearningProfileDoc>('LearningProfile', schema)
  );
}
