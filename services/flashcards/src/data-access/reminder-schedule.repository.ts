import { stageEvents } from '@lingua/events';
import type { Connection } from 'mongoose';
import type { DueProfile, ReminderSchedule } from '../domain/reminders/study-reminder';
import { DEFAULT_PROFILE } from './learning-profile.repository';
import { type LearningProfileDoc, learningProfileModel } from './learning-profile.model';

/** The reminder schedule on the learning profiles: `nextReminderAt` (sparse index) is the queue. */
export function reminderScheduleRepository(
  connection: Connection,
  onStaged: (hint: { collection: string; id: string }) => void = () => undefined,
): ReminderSchedule {
  const Profiles = learningProfileModel(connection);
  return {
    async *due(now, limit) {
      const cursor = Profiles.find({ nextReminderAt: { $lte: now } })
        .sort({ nextReminderAt: 1 })
        .limit(limit)
        .select({ xpGrants: 0, _outbox: 0 })
        .lean<LearningProfileDoc & { nextReminderAt: Date; lastReminderDay?: string | null }>()
        .cursor({ batchSize: 500 });
      try {
        for await (const doc of cursor) {
          const { _id, ...rest } = doc as typeof doc & { _outboxPending?: boolean };
          yield { ...DEFAULT_PROFILE, ...rest, userId: _id } as DueProfile;
        }
      } finally {
        await cursor.close();
      }
    },
    async advance(userId, from, to, sent) {
      const staged = sent ? stageEvents(sent.event).update : undefined;
      const set: Record<string, unknown> = {
        ...staged?.$set,
        ...(sent && { lastReminderDay: sent.localDay }),
        ...(to && { nextReminderAt: to }),
      };
      // the driver's collection: the staged outbox fields are not the schema's
      const r = await Profiles.collection.updateOne(
        { _id: userId, nextReminderAt: from } as never,
        {
          ...(staged && { $push: staged.$push }),
          ...(Object.keys(set).length > 0 && { $set: set }),
          ...(!to && { $unset: { nextReminderAt: 1 } }),
        } as never,
      );
      if (r.modifiedCount !== 1) return false;
      if (sent) onStaged({ collection: Profiles.collection.collectionName, id: userId });
      return true;
    },
  };
}
