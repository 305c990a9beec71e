import type { Clock } from '@lingua/auth';
import type { DomainEvent } from '@lingua/contracts';
import type { InAppNotification, NotificationStore } from '../in-app-notification';
import type { PushSender } from '../push-sender';
import { escapeHtml, type Mailer } from '../send-account-email.use-case';
import { languageOf, pushToDevices, type Reach, type UserReach } from '../user-reach';
import { type BanditOptions, chooseTemplate } from './choose-template';
import type { ReminderSendLog } from './reminder-send-log';
import { eligibleTemplates, type ReminderContext, reminderText } from './reminder-templates';

/** A reminder not out within this long after its time is skipped, never sent late (at 3 a.m.). */
export const REMINDER_DEADLINE_MS = 60 * 60_000;

export type StudyReminderOutcome =
  | { outcome: 'sent'; channel: 'push' | 'email' | 'in_app'; delivered: boolean }
  | { outcome: 'skipped'; reason: 'late' | 'no_account' | 'already_sent' };

export interface StudyReminderDeps {
  notifications: NotificationStore;
  sends: ReminderSendLog;
  users: UserReach;
  push: PushSender;
  mailer: Mailer;
  clock: Clock;
  bandit: BanditOptions;
  random: () => number;
  /**
   * How long a claim holds before another replica may take it over: longer than the longest push
   * (every attempt, back-off and Retry-After waited for), so a live sender is never doubled.
   */
  claimLeaseMs: number;
}

/** The in-app notification's id: one per user and local day. */
const reminderNotificationId = (userId: string, localDay: string) => `reminder:${userId}:${localDay}`;

/**
 * Says a study reminder flashcards announced (ADR 0028): a template chosen by the bandit (ADR 0029),
 * in the user's language; always in the app, and by push to the user's devices when push is on,
 * else by e-mail when e-mail is on. The send log's record, idempotent by the reminder's id, is the
 * claim, marked delivered once said: a redelivered event (another replica, a restart) says nothing
 * twice, and a claim whose replica died before saying it is taken over after its lease.
 */
export async function sendStudyReminder(
  event: DomainEvent<'reminder.triggered'>,
  deps: StudyReminderDeps,
): Promise<StudyReminderOutcome> {
  const { userId, localDay } = event.data;
  const now = deps.clock.now();
  if (now.getTime() - Date.parse(event.data.scheduledFor) > REMINDER_DEADLINE_MS)
    return { outcome: 'skipped', reason: 'late' };
  const reach = await deps.users.reach(userId);
  if (!reach.found) return { outcome: 'skipped', reason: 'no_account' };
  const context: ReminderContext = {
    streak: event.data.streak,
    dueCards: event.data.dueCards,
    dailyGoal: event.data.dailyGoal,
    reviewedToday: event.data.reviewedToday,
  };
  const [stats, userLastSeen] = await Promise.all([deps.sends.stats(now), deps.sends.userLastSeen(userId)]);
  const choice = chooseTemplate({
    eligible: eligibleTemplates(context),
    stats,
    userLastSeen,
    now,
    options: deps.bandit,
    random: deps.random,
  });
  const channel =
    reach.pushNotifications && reach.devices.length > 0
      ? 'push'
      : reach.emailNotifications && reach.email
        ? 'email'
        : 'in_app';
  const id = reminderNotificationId(userId, localDay);
  // stored in English, rendered again in the reader's language on read (like every notification)
  const english = reminderText(choice.templateId, context, 'en');
  const notification: InAppNotification = {
    id,
    userId,
    type: 'study_reminder',
    ...english,
    data: { templateId: choice.templateId, localDay, ...context },
    read: false,
    readAt: null,
    createdAt: now,
  };
  // the in-app one first (idempotent by id): whatever happens next, the user finds it in the app
  await deps.notifications.upsert(notification);
  const claimed = await deps.sends.record({
    id,
    userId,
    templateId: choice.templateId,
    channel,
    sentAt: now,
    fresh: choice.fresh,
    scores: choice.scores,
    probabilities: choice.probabilities,
    banditEnabled: deps.bandit.enabled,
  });
  if (!claimed) {
    const held = await deps.sends.find(id);
    if (!held || held.deliveredAt) return { outcome: 'skipped', reason: 'already_sent' };
    // claimed and never delivered: another replica is saying it, or died doing so; taken over
    // once its lease is out (the event is retried until then)
    if (
      now.getTime() - held.sentAt.getTime() < deps.claimLeaseMs ||
      !(await deps.sends.takeOver(id, held.sentAt, now))
    )
      throw new ReminderInProgress(id);
  }
  const result = await say(
    event,
    { id, reach, channel, text: reminderText(choice.templateId, context, languageOf(reach)) },
    deps,
  );
  await deps.sends.delivered(id, deps.clock.now());
  return result;
}

/** Another replica holds the reminder's claim: the event is retried, and taken over after the lease. */
export class ReminderInProgress extends Error {
  constructor(id: string) {
    super(`reminder ${id} is being sent by another replica`);
  }
}

async function say(
  event: DomainEvent<'reminder.triggered'>,
  r: {
    id: string;
    reach: Reach;
    channel: 'push' | 'email' | 'in_app';
    text: { title: string; body: string };
  },
  deps: StudyReminderDeps,
): Promise<StudyReminderOutcome> {
  const { id, reach, channel, text } = r;
  const { userId } = event.data;
  if (channel === 'push') {
    const delivered = await pushToDevices(
      userId,
      reach,
      {
        ...text,
        // a newer reminder replaces an unread older one on the phone
        collapseKey: 'study_reminder',
        data: { type: 'study_reminder', notificationId: id },
      },
      deps,
    );
    return { outcome: 'sent', channel, delivered };
  }
  if (channel === 'email') {
    await deps.mailer.send({
      to: reach.email,
      subject: text.title,
      text: text.body,
      html: `<p>${escapeHtml(text.body)}</p>`,
      language: languageOf(reach),
      messageId: `<${event.id}@reminders.lingua>`,
    });
  }
  return { outcome: 'sent', channel, delivered: true };
}
