import { createHash } from 'node:crypto';
import { type DomainEvent, makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { AchievementHook, ReviewAchievements } from './achievement-hook';
import { bestStreak } from './achievements/achievement-rules';
import { dayIn, zoneOf } from './learning/calendar';
import { nextStreak } from './learning/streak';
import type { Grade } from './scheduling/grade';
import { scheduleReview } from './scheduling/schedule-review';
import type { Algorithm } from './scheduling/schedule-state';
import type {
  Card,
  CardReadModels,
  CardRepository,
  CardWrite,
  LearningProfile,
  LearningProfileRepository,
  OutboxKick,
  ReviewRecord,
  ReviewRepository,
} from './ports';

export interface ReviewCardCommand {
  userId: string;
  cardId: string;
  grade: Grade;
  /** As the client sent it: Group B confidence 0-2 or Group C rating 1-5. */
  rating: number;
  /** Absent: the learner's own (the profile's). */
  algorithm?: Algorithm | undefined;
  responseTimeMs?: number;
  mode?: string | null;
  sessionId?: string | null;
  /**
   * The card's `timesReviewed` as the client saw it when it asked. Given, the answer applies to that
   * state only: a retry after a lost answer (the card already past it by this very review) gets the
   * first answer again and changes nothing.
   */
  timesReviewed?: number | undefined;
  /** The request's X-Timezone: the study day's zone when the profile names none. */
  zone?: string | undefined;
}

export interface ReviewCardDeps {
  cards: Pick<CardRepository, 'findActive' | 'write' | 'lastReview'>;
  /** Told of the card's write alongside the review's other writes. */
  readModels: CardReadModels;
  reviews: Pick<ReviewRepository, 'insert'>;
  profiles: Pick<LearningProfileRepository, 'get' | 'recordStudyDay'>;
  clock: { now(): Date };
  /** Told where card.reviewed was staged, so the relay reads that card instead of scanning. */
  outbox: Pick<OutboxKick, 'cardStaged'>;
  achievements?: AchievementHook | undefined;
  logger: { warn(obj: object, msg: string): void };
  /** Test-only fault points (start.ts passes them only when a test gives them; absent in production). */
  faults?: ReviewFaults | undefined;
}

/** Where a test stops a review or a session end as a crash would. */
export interface ReviewFaults {
  /** Right after the card's write, before anything else of the review. */
  afterCardWrite?(): void | Promise<void>;
  /** Right after a session's end was stored, before its XP. */
  afterSessionEnd?(): void | Promise<void>;
}

/**
 * The id of the review that answers a card in this state: the same answer to the same state (a
 * retry, a recovery) always gets the same id, and the next review a different one. The state is the
 * review count and the last review's time (a count alone could repeat after an import reset it).
 * UUID layout (version 5 bits) so it can also be the event's id.
 */
export function reviewIdOf(card: Pick<Card, 'id' | 'timesReviewed' | 'lastReviewedAt'>): string {
  const h = createHash('sha1')
    .update(`review:${card.id}:${card.timesReviewed}:${card.lastReviewedAt?.getTime() ?? '-'}`)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Records one answer. The card's write is the review: it reschedules the card (compare-and-set on the
 * review count, so concurrent answers never apply to the same prior state), remembers which review
 * it was, and stages card.reviewed carrying the whole review. The review log, the study day, the read
 * models and the achievements follow (completeReview); if the process dies before them, the
 * card.reviewed consumer completes them from the staged event (ADR 0023).
 * Three round trips to the database and Redis (issue 39): the reads together, the card's write (with
 * the achievement counts), the follow-ups together.
 */
export async function reviewCard(
  cmd: ReviewCardCommand,
  deps: ReviewCardDeps,
): Promise<{ card: Card; correct: boolean; achievements: string[]; algorithm: Algorithm }> {
  const steps = deps.achievements?.inSteps?.(cmd.userId);
  const [found, profile] = await Promise.all([
    deps.cards.findActive(cmd.userId, cmd.cardId),
    deps.profiles.get(cmd.userId),
    steps?.read(),
  ]);
  const algorithm = cmd.algorithm ?? profile.algorithm;
  let card = found;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) card = await deps.cards.findActive(cmd.userId, cmd.cardId);
    if (!card) throw new AppError('NOT_FOUND', 'Flashcard not found');
    if (cmd.timesReviewed !== undefined && card.timesReviewed !== cmd.timesReviewed)
      return { ...(await replay(card, cmd.timesReviewed, deps)), algorithm };
    const now = deps.clock.now();
    const outcome = scheduleReview(algorithm, card, cmd.grade, now);
    const review: ReviewRecord = {
      id: reviewIdOf(card),
      userId: cmd.userId,
      cardId: card.id,
      setId: card.setId,
      sessionId: cmd.sessionId ?? null,
      algorithm,
      grade: cmd.grade,
      rating: cmd.rating,
      correct: outcome.correct,
      responseTimeMs: cmd.responseTimeMs ?? 0,
      mode: cmd.mode ?? null,
      intervalDays: outcome.state.intervalDays,
      masteryLevel: outcome.state.masteryLevel,
      firstReview: outcome.firstReview,
      becameMastered: outcome.becameMastered,
      reviewedAt: now,
    };
    const [written] = await Promise.all([
      deps.cards.write(
        cmd.userId,
        card.id,
        { ...outcome.state, updatedAt: now },
        {
          where: { timesReviewed: card.timesReviewed },
          events: [reviewedEvent(review, outcome.state.nextReviewDate, cmd.zone)],
          lastReview: { id: review.id, timesReviewed: card.timesReviewed, correct: review.correct },
        },
      ),
      // counted without this review (its log entry is not written yet): it is added at the unlock
      attempt === 0 ? steps?.count() : undefined,
    ]);
    if (!written) continue; // another answer got there first: reschedule from the new state
    await deps.faults?.afterCardWrite?.();
    try {
      const achievements = await completeReview(review, written, deps, { zone: cmd.zone, profile, steps });
      return { card: written.card, correct: outcome.correct, achievements, algorithm };
    } finally {
      // published once the follow-ups are done (or failed): the consumer then finds them done
      deps.outbox.cardStaged(card.id, card.userId);
    }
  }
  throw new AppError('CONFLICT', 'The card is being reviewed concurrently; try again');
}

/** The answer the client already had: the card moved past the state it names by exactly that review. */
async function replay(card: Card, timesReviewed: number, deps: ReviewCardDeps) {
  const last = await deps.cards.lastReview(card.userId, card.id);
  if (last && last.timesReviewed === timesReviewed && card.timesReviewed === timesReviewed + 1)
    return { card, correct: last.correct, achievements: [] };
  throw new AppError(
    'CONFLICT',
    `The card's review count is ${card.timesReviewed}, not ${timesReviewed}: reload it and answer again`,
  );
}

function reviewedEvent(review: ReviewRecord, nextReviewDate: Date, zone: string | undefined) {
  return makeEvent(
    'card.reviewed',
    {
      userId: review.userId,
      cardId: review.cardId,
      correct: review.correct,
      masteryLevel: review.masteryLevel,
      nextReviewDate: nextReviewDate.toISOString(),
      review: {
        id: review.id,
        setId: review.setId,
        sessionId: review.sessionId,
        algorithm: review.algorithm,
        grade: review.grade,
        rating: review.rating,
        responseTimeMs: review.responseTimeMs,
        mode: review.mode,
        intervalDays: review.intervalDays,
        firstReview: review.firstReview,
        becameMastered: review.becameMastered,
        reviewedAt: review.reviewedAt.toISOString(),
        // the request's zone, so a completion from the event counts the same study day
        ...(zone && { zone }),
      },
    },
    // the review's id: a copy of the event (a relay publishing twice) is dropped by the stream
    { id: review.id, now: review.reviewedAt },
  );
}

/**
 * The card.reviewed consumer's part: the follow-ups of the review the event carries, if they are
 * missing. A card that no longer exists (its account or set erased) gets nothing recreated. The
 * achievements are evaluated only when the log lacked the review (the request died before them).
 */
export async function completeReviewFromEvent(
  event: DomainEvent<'card.reviewed'>,
  deps: Pick<ReviewCardDeps, 'reviews' | 'profiles' | 'achievements' | 'logger'> & {
    cards: Pick<CardRepository, 'exists'>;
  },
): Promise<void> {
  const { review, ...d } = event.data;
  if (!review) return; // staged before events carried the review
  if (!(await deps.cards.exists(d.userId, d.cardId))) return;
  const { zone, ...fields } = review;
  const record: ReviewRecord = {
    ...fields,
    userId: d.userId,
    cardId: d.cardId,
    correct: d.correct,
    masteryLevel: d.masteryLevel,
    reviewedAt: new Date(review.reviewedAt),
  };
  const logged = await deps.reviews.insert(record);
  const streak = await deps.profiles.recordStudyDay(
    record.userId,
    record.reviewedAt,
    record.reviewedAt,
    zone,
  );
  if (logged) {
    deps.logger.warn(
      { userId: d.userId, reviewId: review.id },
      'completed a review its request left unfinished',
    );
    await unlockAchievements(record.userId, deps, streak && { streakDays: bestStreak(streak) });
  }
}

/**
 * The writes that follow a review's card write, all at once, each idempotent: the read models (the
 * card's counters and due entry), the review log entry (by the review's id), the study day (a day
 * already counted, or older than the last one counted, changes nothing), the achievements. The
 * card.reviewed consumer repeats the log and the study day (completeReviewFromEvent).
 */
async function completeReview(
  review: ReviewRecord,
  written: CardWrite,
  deps: Pick<ReviewCardDeps, 'readModels' | 'reviews' | 'profiles' | 'achievements' | 'logger'>,
  read: { zone: string | undefined; profile: LearningProfile; steps: ReviewAchievements | undefined },
): Promise<string[]> {
  const { zone, profile, steps } = read;
  // the streak this review makes, known from the profile read with the card (what recordStudyDay writes)
  const streakDays = bestStreak(streakAfter(profile, review.reviewedAt, zone));
  const [, , streak, unlocked] = await Promise.all([
    deps.readModels.written(review.userId, [written]),
    deps.reviews.insert(review),
    deps.profiles.recordStudyDay(review.userId, review.reviewedAt, review.reviewedAt, zone, profile),
    steps?.unlock({ reviews: 1, cardsLearned: review.firstReview ? 1 : 0, streakDays }),
  ]);
  if (steps) return unlocked ?? [];
  // a hook that cannot evaluate in steps: once the review is written
  return unlockAchievements(review.userId, deps, streak && { streakDays: bestStreak(streak) });
}

/** The streak once a review at `at` is counted (unchanged when its day is already counted or older). */
function streakAfter(profile: LearningProfile, at: Date, requestZone: string | undefined) {
  const day = dayIn(at, zoneOf(profile.timezone, requestZone));
  if (profile.lastStudyDay !== null && day <= profile.lastStudyDay)
    return { currentStreak: profile.currentStreak, longestStreak: profile.longestStreak };
  return nextStreak(profile, day);
}

/** Achievements never fail the answer that earned them: the next activity re-evaluates the rules. */
export async function unlockAchievements(
  userId: string,
  deps: Pick<ReviewCardDeps, 'achievements' | 'logger'>,
  known?: { streakDays?: number },
): Promise<string[]> {
  if (!deps.achievements) return [];
  try {
    return await deps.achievements.onActivity(userId, known);
  } catch (err) {
    deps.logger.warn({ err, userId }, 'achievement evaluation failed');
    return [];
  }
}
