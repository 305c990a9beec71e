import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { LearningProfile, LearningProfileRepository } from '../domain/ports';
import { dayIn, zoneOf } from '../domain/learning/calendar';
import { nextStreak } from '../domain/learning/streak';
import { type LearningProfileDoc, learningProfileModel } from './learning-profile.model';

export type { LearningProfile, LearningProfileRepository };

export const DEFAULT_PROFILE = {
  algorithm: 'exponential',
  dailyGoal: 20,
  currentStreak: 0,
  longestStreak: 0,
  lastStudyDay: null,
  timezone: null,
  reminderEnabled: false,
  reminderTime: '19:00',
  nextReminderAt: null,
  xp: 0,
} as const;

/** Sessions whose XP grant a profile remembers: a retry of an older one is no longer recognised. */
const XP_GRANTS_KEPT = 100;

export function learningProfileRepository(connection: Connection): LearningProfileRepository {
  const Profiles = learningProfileModel(connection);
  const get = async (userId: string): Promise<LearningProfile> => {
    const doc = await Profiles.findById(userId).lean<LearningProfileDoc>();
    if (!doc) return { userId, ...DEFAULT_PROFILE, updatedAt: new Date(0) };
    const { _id, ...rest } = doc;
    return { ...DEFAULT_PROFILE, ...rest, userId: _id };
  };
  return {
    get,
    async updateSettings(
      userId: string,
      settings: Parameters<LearningProfileRepository['updateSettings']>[1],
      now: Date,
    ): Promise<LearningProfile> {
      // no reminder: the field goes, so the schedule's sparse index holds only users to remind
      const { nextReminderAt, ...rest } = settings;
      await Profiles.updateOne(
        { _id: userId },
        {
          $set: { ...rest, ...(nextReminderAt && { nextReminderAt }), updatedAt: now },
          ...(nextReminderAt === null && { $unset: { nextReminderAt: 1 } }),
        },
        { upsert: true },
      );
      return get(userId);
    },
    /** Counts a study day towards the streak; a compare-and-set on lastStudyDay keeps it right under concurrency. Idempotent. */
    async recordStudyDay(
      userId: string,
      reviewedAt: Date,
      now: Date,
      requestZone?: string,
      known?: LearningProfile,
    ) {
      for (let attempt = 0; attempt < 5; attempt++) {
        // a lost compare-and-set reads again: the known profile is only good for the first attempt
        const profile = attempt === 0 && known?.userId === userId ? known : await get(userId);
        const day = dayIn(reviewedAt, zoneOf(profile.timezone, requestZone));
        // the same day, or an earlier one (a review completed late, after a crash): already counted or
        // too late to change the streak, which only moves forward
        if (profile.lastStudyDay !== null && day <= profile.lastStudyDay)
          return { currentStreak: profile.currentStreak, longestStreak: profile.longestStreak };
        const streak = nextStreak(profile, day);
        const r = await Profiles.updateOne(
          { _id: userId, lastStudyDay: profile.lastStudyDay },
          { $set: { ...streak, lastStudyDay: day, updatedAt: now } },
          { upsert: profile.updatedAt.getTime() === 0 },
        ).catch(() => ({ matchedCount: 0, upsertedCount: 0 }));
        if (r.matchedCount + (r.upsertedCount ?? 0) > 0) return streak;
      }
      return undefined;
    },
    async addXp(userId: string, xp: number, now: Date, grantId: string): Promise<void> {
      if (xp <= 0) return;
      try {
        // the grant's id is kept with the XP it added (the last XP_GRANTS_KEPT), in the same write
        await Profiles.updateOne(
          { _id: userId, xpGrants: { $ne: grantId } },
          {
            $inc: { xp },
            $set: { updatedAt: now },
            $push: { xpGrants: { $each: [grantId], $slice: -XP_GRANTS_KEPT } },
          },
          { upsert: true },
        );
      } catch (err) {
        // the profile exists and already holds this grant: the upsert's insert met the _id
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Profiles.deleteMany({ _id: userId })).deletedCount;
    },
  };
}
