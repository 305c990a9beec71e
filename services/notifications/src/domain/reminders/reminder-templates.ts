import { type Language, type MessageKey, translate } from '@lingua/http';

/**
 * The study reminder's templates: the bandit's arms. An id is stored with every send (the audit and
 * the bandit's statistics), so ids are never renamed or reused; a retired template is removed here
 * and its sends age out of the window.
 */
export const REMINDER_TEMPLATE_IDS = ['streak', 'due_cards', 'goal', 'short', 'comeback'] as const;
export type ReminderTemplateId = (typeof REMINDER_TEMPLATE_IDS)[number];

/** What a reminder may say about the user today; also decides which templates make sense. */
export interface ReminderContext {
  /** Consecutive study days up to yesterday (0: no streak to keep). */
  streak: number;
  /** Cards due for review now. */
  dueCards: number;
  /** Reviews per day the user aims for (0: no goal). */
  dailyGoal: number;
  /** Reviews done today, in the user's day. */
  reviewedToday: number;
}

// A template that would say something false or empty (a streak of 0, "0 cards due") must not compete:
// the paper's "sleeping" arms.
const ELIGIBLE: Record<ReminderTemplateId, (c: ReminderContext) => boolean> = {
  streak: (c) => c.streak >= 1,
  due_cards: (c) => c.dueCards >= 1,
  goal: (c) => c.dailyGoal >= 1 && c.reviewedToday < c.dailyGoal,
  short: () => true,
  comeback: (c) => c.streak === 0,
};

/** The templates that may be sent in this context, in the fixed order of REMINDER_TEMPLATE_IDS. */
export function eligibleTemplates(context: ReminderContext): ReminderTemplateId[] {
  return REMINDER_TEMPLATE_IDS.filter((id) => ELIGIBLE[id](context));
}

export const isReminderTemplateId = (id: string): id is ReminderTemplateId =>
  (REMINDER_TEMPLATE_IDS as readonly string[]).includes(id);

/**
 * The reminder's title and body in the user's language. The texts avoid plural forms (a count
 * follows a colon), so one key per text serves every number in all eight languages.
 */
export function reminderText(
  templateId: ReminderTemplateId,
  context: ReminderContext,
  language: Language,
): { title: string; body: string } {
  const params = {
    streak: context.streak,
    dueCards: context.dueCards,
    dailyGoal: context.dailyGoal,
    remaining: Math.max(0, context.dailyGoal - context.reviewedToday),
  };
  const key = (part: 'title' | 'body') => `notification.study_reminder.${templateId}.${part}` as MessageKey;
  return { title: translate(key('title'), params, language), body: translate(key('body'), params, language) };
}
