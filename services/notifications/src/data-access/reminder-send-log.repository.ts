import type { Connection } from 'mongoose';
import type { BanditStats, TemplateStats } from '../domain/reminders/choose-template';
import type { ReminderTemplateId } from '../domain/reminders/reminder-templates';
import { isReminderTemplateId } from '../domain/reminders/reminder-templates';
import {
  REMINDER_REWARD_WINDOW_MS,
  REMINDER_SEND_WINDOW_DAYS,
  type RecordedReminderSend,
  type ReminderSendLog,
} from '../domain/reminders/reminder-send-log';
import { batchedInserts } from './batched-inserts';

type ReminderSendDoc = Omit<RecordedReminderSend, 'id'> & { _id: string };

const DAY_MS = 24 * 3600 * 1000;

export interface ReminderSendLogOptions {
  windowDays?: number;
  rewardWindowMs?: number;
  /** How long one aggregate of the statistics serves every reminder of this replica. */
  statsCacheMs?: number;
}

/** The reminder send log on the notifications database (collection `reminder_sends`). */
export function reminderSendLogRepository(connection: Connection, options: ReminderSendLogOptions = {}) {
  const windowMs = (options.windowDays ?? REMINDER_SEND_WINDOW_DAYS) * DAY_MS;
  const rewardWindowMs = options.rewardWindowMs ?? REMINDER_REWARD_WINDOW_MS;
  const statsCacheMs = options.statsCacheMs ?? 60_000;
  const col = connection.collection<ReminderSendDoc>('reminder_sends');
  // a reminder minute records up to 100,000 sends: grouped into few statements (insert-if-absent)
  const inserts = batchedInserts(col);

  let cached: { at: number; stats: BanditStats } | undefined;
  let computing: Promise<BanditStats> | undefined;

  async function aggregateStats(now: Date): Promise<BanditStats> {
    // sends younger than the reward window have no outcome yet: counting them as unrewarded would
    // lower the rate of whatever was sent in the last two hours
    const to = new Date(now.getTime() - rewardWindowMs);
    const from = new Date(now.getTime() - windowMs);
    const rows = await col
      .aggregate<{ _id: { template: string; used: boolean }; sends: number; rewarded: number }>([
        { $match: { sentAt: { $gte: from, $lt: to } } },
        {
          $project: {
            templateId: 1,
            fresh: 1,
            rewarded: { $cond: [{ $eq: ['$rewardedAt', null] }, 0, 1] },
          },
        },
        // one row per template the send counts for: the chosen one's own rate, the others' baseline
        { $unwind: '$fresh' },
        {
          $group: {
            _id: { template: '$fresh', used: { $eq: ['$fresh', '$templateId'] } },
            sends: { $sum: 1 },
            rewarded: { $sum: '$rewarded' },
          },
        },
      ])
      .toArray();
    const stats: BanditStats = {};
    for (const { _id, sends, rewarded } of rows) {
      if (!isReminderTemplateId(_id.template)) continue; // a retired template
      const s: TemplateStats = (stats[_id.template] ??= {
        sends: 0,
        rewarded: 0,
        baselineSends: 0,
        baselineRewarded: 0,
      });
      if (_id.used) {
        s.sends += sends;
        s.rewarded += rewarded;
      } else {
        s.baselineSends += sends;
        s.baselineRewarded += rewarded;
      }
    }
    return stats;
  }

  return {
    async record({ id, ...send }) {
      return inserts.insert({ _id: id, ...send, rewardedAt: null, deliveredAt: null });
    },

    async find(id) {
      const doc = await col.findOne({ _id: id });
      if (!doc) return null;
      const { _id, ...d } = doc;
      return { ...d, deliveredAt: d.deliveredAt ?? null, id: _id };
    },

    async takeOver(id, claimedAt, now) {
      const r = await col.updateOne(
        { _id: id, sentAt: claimedAt, deliveredAt: null },
        { $set: { sentAt: now } },
      );
      return r.modifiedCount === 1;
    },

    async delivered(id, at) {
      await col.updateOne({ _id: id }, { $set: { deliveredAt: at } });
    },

    async reward(userId, reviewedAt, windowMs) {
      const [latest] = await col
        .find(
          {
            userId,
            rewardedAt: null,
            sentAt: { $gte: new Date(reviewedAt.getTime() - windowMs), $lte: reviewedAt },
          },
          { projection: { _id: 1 } },
        )
        .sort({ sentAt: -1 })
        .limit(1)
        .toArray();
      if (!latest) return false;
      // conditional: of two reviews racing for one send, one rewards it
      const r = await col.updateOne(
        { _id: latest._id, rewardedAt: null },
        { $set: { rewardedAt: reviewedAt } },
      );
      return r.modifiedCount === 1;
    },

    async userLastSeen(userId) {
      const docs = await col.find({ userId }, { projection: { templateId: 1, sentAt: 1 } }).toArray();
      const seen: Partial<Record<ReminderTemplateId, Date>> = {};
      for (const { templateId, sentAt } of docs) {
        const before = seen[templateId];
        if (!before || sentAt > before) seen[templateId] = sentAt;
      }
      return seen;
    },

    async stats(now) {
      const t = now.getTime();
      if (cached && t >= cached.at && t - cached.at < statsCacheMs) return cached.stats;
      // one aggregate at a time per replica, whatever the number of reminders waiting for it
      computing ??= aggregateStats(now)
        .then((stats) => {
          cached = { at: t, stats };
          return stats;
        })
        .finally(() => {
          computing = undefined;
        });
      return computing;
    },

    async removeAllForUser(userId) {
      return (await col.deleteMany({ userId })).deletedCount;
    },

    /** The sends of a user, newest first (the audit). */
    async listForUser(userId: string): Promise<RecordedReminderSend[]> {
      const docs = await col.find({ userId }).sort({ sentAt: -1 }).toArray();
      return docs.map(({ _id, ...d }) => ({ ...d, id: _id }));
    },
  } satisfies ReminderSendLog & Record<string, unknown>;
}
