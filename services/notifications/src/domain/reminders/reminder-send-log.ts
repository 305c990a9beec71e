import type { BanditStats } from './choose-template';
import type { ReminderTemplateId } from './reminder-templates';

/** A reward is a review within this long after the reminder (the paper's two hours). */
export const REMINDER_REWARD_WINDOW_MS = 2 * 3600 * 1000;

/** Sends are kept, and the bandit learns from, this many days. */
export const REMINDER_SEND_WINDOW_DAYS = 30;

/** One study reminder as sent: what was chosen, how, and (later) whether the user came to study. */
export interface ReminderSend {
  /** The reminder's own id (the user and local day it is for): a redelivery records nothing new. */
  id: string;
  userId: string;
  templateId: ReminderTemplateId;
  /** The channel that carried it to the user (the in-app notification is always stored as well). */
  channel: 'push' | 'email' | 'in_app';
  sentAt: Date;
  /** The eligible templates that were fresh for the user: the send counts in their statistics. */
  fresh: ReminderTemplateId[];
  /** The bandit's scores and probabilities at the choice, for the audit. */
  scores: Partial<Record<ReminderTemplateId, number>>;
  probabilities: Partial<Record<ReminderTemplateId, number>>;
  /** Whether the bandit chose (false: the operators' uniform choice). */
  banditEnabled: boolean;
}

export interface RecordedReminderSend extends ReminderSend {
  rewardedAt: Date | null;
  /**
   * When it was handed to its channel; null while claimed (sentAt is the claim's time): a claim
   * never delivered is taken over after a lease (its sender died).
   */
  deliveredAt: Date | null;
}

/** The record of reminder sends and their outcomes: the bandit's memory and the audit trail. */
export interface ReminderSendLog {
  /** Stores a send, claimed and not yet delivered; idempotent by id. Returns whether it was new. */
  record(send: ReminderSend): Promise<boolean>;
  /** The send recorded under this id, if any. */
  find(id: string): Promise<RecordedReminderSend | null>;
  /**
   * Takes over a claim made at `claimedAt` and never delivered (its sender died), as of `now`: true
   * when this caller holds it now (another may have taken it first).
   */
  takeOver(id: string, claimedAt: Date, now: Date): Promise<boolean>;
  /** The reminder went out on its channel: a redelivery says nothing more. */
  delivered(id: string, at: Date): Promise<void>;
  /**
   * Marks the user's latest unrewarded send with sentAt in [reviewedAt - windowMs, reviewedAt] as
   * rewarded at reviewedAt. Returns whether a send was rewarded.
   */
  reward(userId: string, reviewedAt: Date, windowMs: number): Promise<boolean>;
  /** When this user last got each template, within the window. */
  userLastSeen(userId: string): Promise<Partial<Record<ReminderTemplateId, Date>>>;
  /** Every template's statistics over the window up to `now` (may be up to a minute old). */
  stats(now: Date): Promise<BanditStats>;
  /** Erases every send of a user (account deletion). Returns how many. */
  removeAllForUser(userId: string): Promise<number>;
}
