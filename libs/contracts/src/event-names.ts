/**
 * Event names. DO NOT CHANGE a published name: partners subscribe to them by string, and NATS
 * subjects (`events.<name>`; `events_activity.<name>` for the activity stream's, see @lingua/events
 * streams.ts) and durable consumer filters are derived from them.
 * Public ones are the spec's webhook events; internal ones follow `<aggregate>.<past-tense-verb>`.
 */
export const EVENT_NAMES = {
  userCreated: 'user.created',
  userDeleted: 'user.deleted',
  userPasswordResetRequested: 'user.password_reset_requested',
  userEmailVerificationRequested: 'user.email_verification_requested',
  subscriptionCreated: 'subscription.created',
  subscriptionUpdated: 'subscription.updated',
  cardReviewed: 'card.reviewed',
  achievementUnlocked: 'achievement.unlocked',
  reminderTriggered: 'reminder.triggered',
} as const;

export type EventName = (typeof EVENT_NAMES)[keyof typeof EVENT_NAMES];

/** The events partners may receive as webhooks (spec: Events). */
export const PUBLIC_EVENT_NAMES: readonly EventName[] = [
  'user.created',
  'user.deleted',
  'subscription.created',
  'subscription.updated',
  'achievement.unlocked',
];
