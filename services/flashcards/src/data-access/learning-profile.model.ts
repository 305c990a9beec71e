import { type Connection, type Model, Schema } from 'mongoose';
import type { LearningProfile } from '../domain/ports';

/** Per-user learning settings and running totals (streak, XP), one document per user. */
export type LearningProfileDoc = Omit<LearningProfile, 'userId'> & {
  _id: string;
  /** Ids of the last sessions whose XP was added (never read with the profile). */
  xpGrants?: string[];
  lastReminderDay?: string | null;
};

const schema = new Schema<LearningProfileDoc>(
  {
    _id: { type: String, required: true },
    algorithm: { type: String, default: 'exponential' },
    dailyGoal: { type: Number, default: 20 },
    currentStreak: { type: Number, default: 0 },
    longestStreak: { type: Number, default: 0 },
    lastStudyDay: { type: String, default: null },
    timezone: { type: String, default: null },
    reminderEnabled: { type: Boolean, default: false },
    reminderTime: { type: String, default: '19:00' },
    // absent when reminders are off (a sparse index serves the due query)
    nextReminderAt: { type: Date },
    // the local day last reminded: once per day, even when the time moves later that day
    lastReminderDay: { type: String, default: null },
    xp: { type: Number, default: 0 },
    // ids of the last sessions whose XP was added: a repeated grant adds nothing
    xpGrants: { type: [String], select: false },
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
