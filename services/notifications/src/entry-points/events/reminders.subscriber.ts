import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { remindersFailed, remindersSent, remindersSkipped } from '@lingua/metrics';
import type { Tombstones } from '../../domain/account-deleted.use-case';
import { REMINDER_REWARD_WINDOW_MS } from '../../domain/reminders/reminder-send-log';
import {
  sendStudyReminder,
  type StudyReminderDeps,
} from '../../domain/reminders/send-study-reminder.use-case';

/**
 * The study reminders flashcards announces, in a durable of their own: a busy reminder minute
 * (100,000 users) queues here, not in front of webhooks and account e-mails. Concurrent: each
 * reminder is one user's and is claimed by its id (ADR 0028).
 */
export const remindersSubscriber = (
  deps: StudyReminderDeps & { tombstones: Tombstones; concurrency: number },
): ConsumerDefinition => ({
  durable: 'notifications-reminders',
  events: ['reminder.triggered'],
  concurrency: deps.concurrency,
  // the send log's record is the claim: no processed-event record needed
  idempotent: true,
  handler: async (event) => {
    const reminder = event as DomainEvent<'reminder.triggered'>;
    if (await deps.tombstones.isDeleted(reminder.data.userId)) {
      remindersSkipped.inc({ reason: 'no_account' });
      return;
    }
    const result = await sendStudyReminder(reminder, deps);
    if (result.outcome === 'skipped') {
      // a repeat of one already said is not a skip of the reminder
      if (result.reason !== 'already_sent') remindersSkipped.inc({ reason: result.reason });
      return;
    }
    remindersSent.inc({ channel: result.channel });
    if (!result.delivered) remindersFailed.inc({ channel: result.channel });
  },
});

/**
 * A review rewards the template of the reminder it followed within two hours (the bandit's reward,
 * ADR 0029). On the activity stream, where card.reviewed lives.
 */
export const reminderRewardsSubscriber = (deps: Pick<StudyReminderDeps, 'sends'>): ConsumerDefinition => ({
  durable: 'notifications-reminder-rewards',
  events: ['card.reviewed'],
  concurrency: 16,
  // marking a send rewarded twice changes nothing
  idempotent: true,
  handler: async (event) => {
    const reviewed = event as DomainEvent<'card.reviewed'>;
    const at = new Date(reviewed.data.review?.reviewedAt ?? reviewed.timestamp);
    await deps.sends.reward(reviewed.data.userId, at, REMINDER_REWARD_WINDOW_MS);
  },
});
