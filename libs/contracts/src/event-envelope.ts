import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EVENT_NAMES, type EventName } from './event-names';

/** Bumped when a payload changes incompatibly; consumers branch on it. */
export const EVENT_SCHEMA_VERSION = 1;

const userId = z.string().min(1);
const isoDate = z.iso.datetime({ offset: true });
const sealed = z.string().startsWith('v1.');
/**
 * The roles a subscription event may set: the ones subscriptions owns. `admin` is granted by
 * operators in identity, never by an event (anything on the bus could publish one), so an event
 * naming it is malformed and dead-lettered by every consumer.
 */
const subscriptionRole = z.enum(['user', 'subscriber']);
const subscriptionStatus = z.enum(['active', 'expired', 'cancelled', 'pending']);

const subscriptionData = z.object({
  subscriptionId: z.string(),
  userId: userId.nullable(),
  deviceId: z.string().nullable(),
  planId: z.string(),
  status: subscriptionStatus,
  platform: z.enum(['ios', 'android', 'sandbox']),
  expiresAt: isoDate,
  autoRenewal: z.boolean(),
  isTrialPeriod: z.boolean(),
  /**
   * The role and subscriptionStatus the user's subscriptions (all of them) give the user; identity
   * applies them, never admin.
   */
  userRole: subscriptionRole,
  userSubscriptionStatus: z.enum(['active', 'inactive', 'trial']),
  /**
   * The user's entitlement version: a per-user counter subscriptions increases for every change it
   * announces. Identity applies an event only when its version is higher than the last applied one
   * (never by timestamp). Absent on guest (device) subscriptions and from older publishers.
   */
  userVersion: z.number().int().positive().optional(),
});

/** One schema per event: the data each event carries. */
export const EVENT_DATA_SCHEMAS = {
  [EVENT_NAMES.userCreated]: z.object({
    userId,
    email: z.string(),
    username: z.string(),
    authProvider: z.enum(['password', 'apple', 'google']),
    preferredLanguage: z.string().optional(),
    /** The guest device the account was created from (informational: a guest purchase is claimed with its receipt). */
    deviceId: z.string().optional(),
  }),
  /** No `reason`: the user's free text stays with identity (no subscriber needs it). */
  [EVENT_NAMES.userDeleted]: z.object({ userId }),
  /** `mail`: recipient and link sealed for notifications (sealed-mail.ts); never the link in clear. */
  [EVENT_NAMES.userPasswordResetRequested]: z.object({ userId, mail: sealed, expiresAt: isoDate }),
  [EVENT_NAMES.userEmailVerificationRequested]: z.object({ userId, mail: sealed, expiresAt: isoDate }),
  [EVENT_NAMES.subscriptionCreated]: subscriptionData,
  [EVENT_NAMES.subscriptionUpdated]: subscriptionData.extend({
    previousStatus: subscriptionStatus.optional(),
    change: z.string(),
  }),
  [EVENT_NAMES.cardReviewed]: z.object({
    userId,
    cardId: z.string(),
    correct: z.boolean(),
    masteryLevel: z.number().int().min(0).max(100),
    nextReviewDate: isoDate,
    /**
     * The review as flashcards logs it, staged with the card's write so the review log and study day
     * can be completed after a crash (flashcards consumes it). Optional: events staged before it.
     */
    review: z
      .object({
        id: z.uuid(),
        setId: z.string().nullable(),
        sessionId: z.string().nullable(),
        algorithm: z.string(),
        grade: z.string(),
        rating: z.number().int(),
        responseTimeMs: z.number().int().min(0),
        mode: z.string().nullable(),
        intervalDays: z.number(),
        firstReview: z.boolean(),
        becameMastered: z.boolean(),
        reviewedAt: isoDate,
        /** The reviewer's X-Timezone: the study day's zone when the profile names none. */
        zone: z.string().max(64).optional(),
      })
      .optional(),
  }),
  [EVENT_NAMES.achievementUnlocked]: z.object({
    userId,
    achievementId: z.string(),
    name: z.string(),
    xp: z.number().int().min(0),
  }),
  /**
   * A user's daily study reminder fell due and the user has not studied enough today (flashcards'
   * reminder schedule, ADR 0028); notifications says it. One per user and local day: the event id
   * derives from both, so a repeat is the same event.
   */
  [EVENT_NAMES.reminderTriggered]: z.object({
    userId,
    /** The user's local day the reminder is for (YYYY-MM-DD). */
    localDay: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    /** The instant it was due: one that cannot go out within the hour after is skipped, not sent late. */
    scheduledFor: isoDate,
    timezone: z.string().max(64),
    streak: z.number().int().min(0),
    dueCards: z.number().int().min(0),
    dailyGoal: z.number().int().min(1),
    reviewedToday: z.number().int().min(0),
  }),
} satisfies Record<EventName, z.ZodType>;

export type EventData<N extends EventName> = z.infer<(typeof EVENT_DATA_SCHEMAS)[N]>;

/** The envelope of every event: `{id, event, version, timestamp, data}`; the id is the de-duplication key. */
export interface DomainEvent<N extends EventName = EventName> {
  id: string;
  event: N;
  version: number;
  timestamp: string;
  data: EventData<N>;
}
export type AnyDomainEvent = { [N in EventName]: DomainEvent<N> }[EventName];

export const EventEnvelope = z.object({
  id: z.uuid(),
  event: z.enum(Object.values(EVENT_NAMES) as [EventName, ...EventName[]]),
  version: z.number().int().positive(),
  timestamp: isoDate,
  data: z.unknown(),
});

/** Builds a validated event; a payload that breaks its schema is a bug, so it throws. */
export function makeEvent<N extends EventName>(
  event: N,
  data: EventData<N>,
  options: { id?: string; now?: Date } = {},
): DomainEvent<N> {
  const parsed = EVENT_DATA_SCHEMAS[event].parse(data) as EventData<N>;
  return {
    id: options.id ?? randomUUID(),
    event,
    version: EVENT_SCHEMA_VERSION,
    timestamp: (options.now ?? new Date()).toISOString(),
    data: parsed,
  };
}

/**
 * How far ahead of the consumer's clock an event's timestamp may be (clock skew between pods). Later
 * than that, the event is refused: consumers order by timestamp, so an event from the future would
 * make every legitimate one after it look older and be ignored.
 */
export const MAX_EVENT_CLOCK_SKEW_MS = 5 * 60_000;

/** True when the event claims to come from further in the future than clock skew explains. */
export function isFromTheFuture(event: { timestamp: string }, now: Date, skewMs = MAX_EVENT_CLOCK_SKEW_MS) {
  return Date.parse(event.timestamp) > now.getTime() + skewMs;
}

/** Validates an incoming event (envelope and payload); throws a ZodError if either is wrong. */
export function parseEvent(raw: unknown): AnyDomainEvent {
  const envelope = EventEnvelope.parse(raw);
  const data = EVENT_DATA_SCHEMAS[envelope.event].parse(envelope.data);
  return { ...envelope, data } as AnyDomainEvent;
}
