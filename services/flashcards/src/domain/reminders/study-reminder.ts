import { createHash } from 'node:crypto';
import { type DomainEvent, makeEvent } from '@lingua/contracts';
import { dayIn, nextTimeOfDay, startOfDay, zoneOf } from '../learning/calendar';
import { visibleStreak } from '../learning/streak';
import type { LearningProfile, ReviewRepository } from '../ports';

/**
 * The daily study reminder's schedule (ADR 0028): each user with reminders on holds the instant the
 * next one is due, recomputed when the reminder setting, its time or the zone changes; a scheduler
 * takes the due ones, oldest first, and decides each once.
 */

/** A reminder that cannot go out within this long after its time is skipped (never sent at 3 a.m.). */
export const REMINDER_LATE_AFTER_MS = 60 * 60_000;

type ReminderSettings = Pick<LearningProfile, 'reminderEnabled' | 'reminderTime' | 'timezone'>;

/** The next instant after `after` the user is to be reminded; null when reminders are off. */
export const nextReminderAt = (p: ReminderSettings, after: Date): Date | null =>
  p.reminderEnabled ? nextTimeOfDay(after, p.reminderTime, zoneOf(p.timezone)) : null;

/**
 * The reminder's event id, the same for a user and local day whoever computes it (a UUID's shape,
 * from a hash): a repeat is the same event, de-duplicated by the bus and the sender.
 */
export function reminderEventId(userId: string, localDay: string): string {
  const h = createHash('sha256').update(`study-reminder:${userId}:${localDay}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A profile whose reminder is due. */
export type DueProfile = LearningProfile & { nextReminderAt: Date; lastReminderDay?: string | null };

/** The port of the schedule: where the due reminders are found and moved on. */
export interface ReminderSchedule {
  /** Profiles whose reminder is due at `now`, oldest first, read as a stream (never loaded whole). */
  due(now: Date, limit: number): AsyncIterable<DueProfile>;
  /**
   * Moves the user's reminder from `from` to `to` unless another run did first (compare-and-set on
   * `from`): false when it was taken. With `sent`, records the local day as reminded and stages the
   * event in the same write, so the reminder is announced once.
   */
  advance(
    userId: string,
    from: Date,
    to: Date | null,
    sent?: { localDay: string; event: DomainEvent<'reminder.triggered'> },
  ): Promise<boolean>;
}

export type ReminderOutcome = 'triggered' | 'late' | 'goal_met' | 'already_reminded' | 'taken';

export interface RunReminderDeps {
  schedule: ReminderSchedule;
  reviews: Pick<ReviewRepository, 'countBetween'>;
  countDue(userId: string, at: Date): Promise<number>;
  now(): Date;
}

/**
 * Decides one due reminder: skipped when too late, when the user already studied enough today (the
 * daily goal reached) or was reminded today already; else announced. Either way the schedule moves
 * to the next day's time, so the user is decided once per local day at any replica count.
 */
export async function runDueReminder(p: DueProfile, deps: RunReminderDeps): Promise<ReminderOutcome> {
  const now = deps.now();
  const scheduled = p.nextReminderAt;
  const zone = zoneOf(p.timezone);
  const localDay = dayIn(scheduled, zone);
  // the next one after the later of its time and now: a schedule far behind (the scheduler was down)
  // is not walked through day by day
  const next = nextReminderAt(p, new Date(Math.max(now.getTime(), scheduled.getTime())));
  const skip = async (why: ReminderOutcome) =>
    (await deps.schedule.advance(p.userId, scheduled, next)) ? why : 'taken';
  if (now.getTime() - scheduled.getTime() > REMINDER_LATE_AFTER_MS) return skip('late');
  if (p.lastReminderDay === localDay) return skip('already_reminded');
  // no review today: nothing to count
  const reviewedToday =
    p.lastStudyDay === localDay
      ? await deps.reviews.countBetween(p.userId, startOfDay(localDay, zone), now, p.dailyGoal)
      : 0;
  if (reviewedToday >= p.dailyGoal) return skip('goal_met');
  const event = makeEvent(
    'reminder.triggered',
    {
      userId: p.userId,
      localDay,
      scheduledFor: scheduled.toISOString(),
      timezone: zone,
      streak: visibleStreak(p, localDay),
      dueCards: await deps.countDue(p.userId, now),
      dailyGoal: p.dailyGoal,
      reviewedToday,
    },
    { id: reminderEventId(p.userId, localDay), now },
  );
  return (await deps.schedule.advance(p.userId, scheduled, next, { localDay, event }))
    ? 'triggered'
    : 'taken';
}
