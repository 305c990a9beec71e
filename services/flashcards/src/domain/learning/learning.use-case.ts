import { nextReminderAt } from '../reminders/study-reminder';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import type {
  Card,
  CardRepository,
  LearningProfile,
  LearningProfileRepository,
  LearningSession,
  ReviewRepository,
  SessionRepository,
  SessionResult,
  SetRepository,
} from '../ports';
import { type ReviewCardDeps, reviewCard, unlockAchievements } from '../review-card.use-case';
import { gradeFromRating } from '../scheduling/grade';
import { isTimeZone, zoneOf } from './calendar';
import { type StatsPeriod, learningStats, periodStart, sessionXp } from './stats';

interface Clock {
  now(): Date;
}

const setNotFound = () => new AppError('NOT_FOUND', 'Flashcard set not found');

/** The user's due cards (at most `limit`, optionally of one set) and how many are due in all. */
export async function dueForLearning(
  userId: string,
  q: { limit: number; setId?: string | undefined },
  deps: { cards: CardRepository; sets: SetRepository; clock: Clock },
): Promise<{ cards: Card[]; totalDue: number }> {
  const now = deps.clock.now();
  if (q.setId && !(await deps.sets.find(userId, q.setId))) throw setNotFound();
  const [cards, totalDue] = await Promise.all([
    deps.cards.due(userId, { to: now, limit: q.limit, ...(q.setId && { setId: q.setId }) }),
    deps.cards.countDue(userId, now, q.setId),
  ]);
  return { cards, totalDue };
}

/** A Group C review (rating 1-5), scheduled with the user's algorithm. */
export async function reviewWithProfile(
  userId: string,
  answer: {
    cardId: string;
    rating: Parameters<typeof gradeFromRating>[0];
    responseTime?: number | undefined;
    mode?: string | undefined;
    sessionId?: string | undefined;
    timesReviewed?: number | undefined;
    zone?: string | undefined;
  },
  deps: ReviewCardDeps & { profiles: LearningProfileRepository },
): Promise<Awaited<ReturnType<typeof reviewCard>> & { algorithm: LearningProfile['algorithm'] }> {
  // the learner's own scheduler (reviewCard reads the profile with the card)
  return reviewCard(
    {
      userId,
      cardId: answer.cardId,
      grade: gradeFromRating(answer.rating),
      rating: answer.rating,
      responseTimeMs: answer.responseTime ?? 0,
      mode: answer.mode ?? null,
      sessionId: answer.sessionId ?? null,
      timesReviewed: answer.timesReviewed,
      zone: answer.zone,
    },
    deps,
  );
}

/**
 * The learner's figures over a period, optionally for one set, on the user's calendar: the profile's
 * zone, else the request's (`zone`, X-Timezone), else UTC.
 */
export async function learningStatsOf(
  userId: string,
  q: { period: StatsPeriod; setId?: string | undefined; zone?: string | undefined },
  deps: { profiles: LearningProfileRepository; reviews: ReviewRepository; clock: Clock },
) {
  const now = deps.clock.now();
  const profile = await deps.profiles.get(userId);
  const zone = zoneOf(profile.timezone, q.zone);
  const reviews = await deps.reviews.between(
    userId,
    periodStart(q.period, now, zone),
    new Date(now.getTime() + 1),
    q.setId,
  );
  return learningStats(q.period, reviews, profile, now, zone);
}

/** Starts a session of the mode's cards: due ("review"), never reviewed ("learn") or weakest first. */
export async function startSession(
  userId: string,
  body: { mode: 'review' | 'learn' | 'cram'; setId?: string | undefined; limit?: number | undefined },
  deps: { cards: CardRepository; sets: SetRepository; sessions: SessionRepository; clock: Clock },
): Promise<{ session: LearningSession & { mode: typeof body.mode }; cards: Card[] }> {
  if (body.setId && !(await deps.sets.find(userId, body.setId))) throw setNotFound();
  const now = deps.clock.now();
  const n = body.limit ?? 20;
  const cards =
    body.mode === 'review'
      ? await deps.cards.due(userId, { to: now, limit: n, ...(body.setId && { setId: body.setId }) })
      : body.mode === 'learn'
        ? await deps.cards.unreviewed(userId, n, body.setId)
        : await deps.cards.weakest(userId, n, body.setId);
  const session = {
    id: randomUUID(),
    userId,
    mode: body.mode,
    setId: body.setId ?? null,
    cardIds: cards.map((c) => c.id),
    startedAt: now,
    endedAt: null,
    result: null,
  };
  await deps.sessions.insert(session);
  return { session, cards };
}

/**
 * Ends a session: its figures from the reviews since it started, achievements, and the XP earned
 * (added once). Ending twice answers the first result again (a retried request must not double it).
 */
export async function endSession(
  userId: string,
  sessionId: string,
  deps: Pick<ReviewCardDeps, 'achievements' | 'logger' | 'faults'> & {
    sessions: SessionRepository;
    reviews: ReviewRepository;
    profiles: LearningProfileRepository;
    clock: Clock;
  },
): Promise<SessionResult> {
  const session = await deps.sessions.find(userId, sessionId);
  if (!session) throw new AppError('NOT_FOUND', 'Learning session not found');
  if (session.result) return settled(session, session.result, deps);
  const now = deps.clock.now();
  const reviews = await deps.reviews.between(
    userId,
    session.startedAt,
    new Date(now.getTime() + 1),
    session.setId ?? undefined,
  );
  const correct = reviews.filter((r) => r.correct).length;
  const achievements = await unlockAchievements(userId, deps);
  const result = {
    duration: Math.round((now.getTime() - session.startedAt.getTime()) / 1000),
    cardsStudied: new Set(reviews.map((r) => r.cardId)).size,
    accuracy: reviews.length === 0 ? 0 : Math.round((correct / reviews.length) * 100),
    xpEarned: sessionXp(correct, reviews.length - correct),
    achievements,
  };
  const ended = await deps.sessions.end(userId, sessionId, now, result);
  if (!ended) return settled(await deps.sessions.find(userId, sessionId), result, deps);
  await deps.faults?.afterSessionEnd?.();
  await deps.profiles.addXp(userId, result.xpEarned, now, sessionId);
  return result;
}

/**
 * A session ended before (another request, or one that died before its XP): its stored result, and
 * its XP granted if that request did not get to it (the grant is once per session).
 */
async function settled(
  stored: LearningSession | null,
  fallback: SessionResult,
  deps: { profiles: LearningProfileRepository; clock: Clock },
): Promise<SessionResult> {
  if (!stored?.result) return fallback;
  const at = stored.endedAt ?? deps.clock.now();
  await deps.profiles.addXp(stored.userId, stored.result.xpEarned, at, stored.id);
  return stored.result;
}

type Settings = Pick<LearningProfile, 'algorithm' | 'dailyGoal'>;

/** The learner's scheduling algorithm and daily goal. */
export async function learningSettings(
  userId: string,
  deps: { profiles: LearningProfileRepository },
): Promise<Settings> {
  const p = await deps.profiles.get(userId);
  return { algorithm: p.algorithm, dailyGoal: p.dailyGoal };
}

/** Changes the given settings; answers all of them. */
export async function changeLearningSettings(
  userId: string,
  change: Partial<Settings>,
  deps: { profiles: LearningProfileRepository; clock: Clock },
): Promise<Settings> {
  const p = await deps.profiles.updateSettings(userId, change, deps.clock.now());
  return { algorithm: p.algorithm, dailyGoal: p.dailyGoal };
}

/** Identity's write-through of the user's daily goal (settings) and time zone (profile). */
export const LearningPreferencesInput = z.object({
  userId: z.string().min(1),
  dailyGoal: z.number().int().min(1).max(1000).optional(),
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone').optional(),
  reminderEnabled: z.boolean().optional(),
  reminderTime: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM')
    .optional(),
});

/** Keeps the goal and zone identity sends: flashcards holds the one daily goal both endpoints show. */
export async function setLearningPreferences(
  input: z.infer<typeof LearningPreferencesInput>,
  deps: { profiles: LearningProfileRepository; now: () => Date },
): Promise<Pick<LearningProfile, 'dailyGoal' | 'timezone'>> {
  const { userId, ...given } = input;
  const change: Parameters<LearningProfileRepository['updateSettings']>[1] = Object.fromEntries(
    Object.entries(given).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(change).length === 0) {
    const p = await deps.profiles.get(userId);
    return { dailyGoal: p.dailyGoal, timezone: p.timezone };
  }
  // the reminder's instant follows what decides it: its setting, its time and the zone (ADR 0028)
  if (
    change.reminderEnabled !== undefined ||
    change.reminderTime !== undefined ||
    change.timezone !== undefined
  ) {
    const now = deps.now();
    change.nextReminderAt = nextReminderAt({ ...(await deps.profiles.get(userId)), ...change }, now);
  }
  const p = await deps.profiles.updateSettings(userId, change, deps.now());
  return { dailyGoal: p.dailyGoal, timezone: p.timezone };
}
