import { type Connection, type Model, Schema } from 'mongoose';
import { outboxFields } from '@lingua/events';

/**
 * One document per (user, achievement) unlock, `_id` = `<userId>:<achievementId>`, with its
 * `achievement.unlocked` event staged inside (outbox). Exactly-once rests on the primary key: a
 * database never accepts two inserts of one `_id`.
 */
export interface AchievementUnlockDoc {
  _id: string;
  userId: string;
  achievementId: string;
  xp: number;
  unlockedAt: Date;
}

/** One document per claimed achievement, same `_id` as its unlock: inserted once, never updated. */
export interface AchievementClaimDoc {
  _id: string;
  userId: string;
  achievementId: string;
  xp: number;
  claimedAt: Date;
}

const unlockSchema = new Schema<AchievementUnlockDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    achievementId: { type: String, required: true },
    xp: { type: Number, required: true },
    unlockedAt: { type: Date, required: true },
    ...outboxFields,
  },
  { collection: 'achievement_unlocks', versionKey: false },
);

const claimSchema = new Schema<AchievementClaimDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    achievementId: { type: String, required: true },
    xp: { type: Number, required: true },
    claimedAt: { type: Date, required: true },
  },
  { collection: 'achievement_claims', versionKey: false },
);

export const achievementDocId = (userId: string, achievementId: string) => `${userId}:${achievementId}`;

export function achievementUnlockModel(connection: Connection): Model<AchievementUnlockDoc> {
  return (
    (connection.models.AchievementUnlock as Model<AchievementUnlockDoc> | undefined) ??
    connection.model<AchievementUnlockDoc>('AchievementUnlock', unlockSchema)
  );
}

export function achievementClaimModel(connection: Connection): Model<AchievementClaimDoc> {
  return (
    (connection.models.AchievementClaim as Model<AchievementClaimDoc> | undefined) ??
    connection.model<AchievementClaimDoc>('AchievementClaim', claimSchema)
  );
}
