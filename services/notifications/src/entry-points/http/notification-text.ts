import { currentLanguage, type MessageKey, translate } from '@lingua/http';
import type { InAppNotification } from '../../domain/in-app-notification';
import { isReminderTemplateId, reminderText } from '../../domain/reminders/reminder-templates';

/**
 * A notification's title and body in the reader's language, rendered again from its type and data
 * (stored in English, as the event made it). One stored before its data named every part keeps its
 * English text.
 */
export function inReadersLanguage<N extends Pick<InAppNotification, 'type' | 'title' | 'body' | 'data'>>(
  n: N,
): N {
  if (currentLanguage() === 'en') return n;
  const data = (n.data ?? {}) as Record<string, unknown>;
  const text = (key: string, params: Record<string, string | number> = {}) => ({
    title: translate(`notification.${key}.title` as MessageKey, params),
    body: translate(`notification.${key}.body` as MessageKey, params),
  });
  if (n.type === 'welcome' && typeof data.username === 'string')
    return { ...n, ...text('welcome', { username: data.username }) };
  if (
    n.type === 'subscription' &&
    typeof data.status === 'string' &&
    ['active', 'cancelled', 'expired', 'pending'].includes(data.status)
  )
    return { ...n, ...text(`subscription.${data.status}`) };
  if (
    n.type === 'study_reminder' &&
    typeof data.templateId === 'string' &&
    isReminderTemplateId(data.templateId)
  ) {
    const count = (k: string) => (typeof data[k] === 'number' ? (data[k] as number) : 0);
    const context = {
      streak: count('streak'),
      dueCards: count('dueCards'),
      dailyGoal: count('dailyGoal'),
      reviewedToday: count('reviewedToday'),
    };
    return { ...n, ...reminderText(data.templateId, context, currentLanguage()) };
  }
  if (n.type === 'achievement' && typeof data.name === 'string' && typeof data.xp === 'number')
    return { ...n, ...text('achievement', { name: data.name, xp: data.xp }) };
  return n;
}
