import { createHash } from 'node:crypto';
import { type DomainEvent, makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { AchievementHook } from './achievement-hook';
import { bestStreak } from './achievements/achievement-rules';
import type { Grade } from './scheduling/grade';
import { scheduleReview } from './scheduling/schedule-review';
import type { Algorithm } from './scheduling/schedule-state';
import type {
  Card,
  CardRepository,
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
  algorithm: Algorithm;
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
  cards: Pick<CardRepository, 'findActive' | 'update' | 'lastReview'>;
  reviews: Pick<ReviewRepository, 'insert'>;
  profiles: Pick<LearningProfileRepository, 'recordStudyDay'>;
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
 * it was, and stages card.reviewed carrying the whole review. The review log, the study day and the
 * achievements follow (completeReview); if the process dies before them, the card.reviewed consumer
 * completes them from the staged event (ADR 0023).
 */
export async function reviewCard(
  cmd: ReviewCardCommand,
  deps: ReviewCardDeps,
): Promise<{ card: Card; correct: boolean; achievements: string[] }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const card = await deps.cards.findActive(cmd.userId, cmd.cardId);
    if (!card) throw new AppError('NOT_FOUND', 'Flashcard not found');
    if (cmd.timesReviewed !== undefined && card.timesReviewed !== cmd.timesReviewed)
      return replay(card, cmd.timesReviewed, deps);
    const now = deps.clock.now();
    const outcome = scheduleReview(cmd.algorithm, card, cmd.grade, now);
    const review: ReviewRecord = {
      id: reviewIdOf(card),
      userId: cmd.userId,
      cardId: card.id,
      setId: card.setId,
      sessionId: cmd.sessionId ?? null,
      algorithm: cmd.algorithm,
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
    const updated = await deps.cards.update(
      cmd.userId,
      card.id,
      { ...outcome.state, updatedAt: now },
      {
        where: { timesReviewed: card.timesReviewed },
        events: [reviewedEvent(review, outcome.state.nextReviewDate, cmd.zone)],
        lastReview: { id: review.id, timesReviewed: card.timesReviewed, correct: review.correct },
      },
    );
    if (!updated) continue; // another answer got there first: reschedule from the new state
    await deps.faults?.afterCardWrite?.();
    try {
      const achievements = await completeReview(review, deps, cmd.zone);
      return { card: updated, correct: outcome.correct, achievements };
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
 * The writes that follow a review's card write, each idempotent: the review log entry (by the review's
 * id), the study day (a day already counted, or older than the last one counted, changes nothing), the
 * achievements. The card.reviewed consumer repeats the first two (completeReviewFromEvent).
 */
async function completeReview(
  review: ReviewRecord,
  deps: Pick<ReviewCardDeps, 'reviews' | 'profiles' | 'achievements' | 'logger'>,
  zone?: string,
): Promise<string[]> {
  await deps.reviews.insert(review);
  const streak = await deps.profiles.recordStudyDay(
    review.userId,
    review.reviewedAt,
    review.reviewedAt,
    zone,
  );
  return unlockAchievements(review.userId, deps, streak && { streakDays: bestStreak(streak) });
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
