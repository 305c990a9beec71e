import { randomUUID } from 'node:crypto';
import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import type { AchievementHook } from './achievement-hook';
import { bestStreak } from './achievements/achievement-rules';
import { utcDay } from './learning/streak';
import type { Grade } from './scheduling/grade';
import { type ReviewOutcome, scheduleReview } from './scheduling/schedule-review';
import type { Algorithm } from './scheduling/schedule-state';
import type { Card, CardRepository, LearningProfileRepository, OutboxKick, ReviewRepository } from './ports';

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
}

export interface ReviewCardDeps {
  cards: Pick<CardRepository, 'findActive' | 'update'>;
  reviews: Pick<ReviewRepository, 'insert'>;
  profiles: Pick<LearningProfileRepository, 'recordStudyDay'>;
  clock: { now(): Date };
  /** Told where card.reviewed was staged, so the relay reads that card instead of scanning. */
  outbox: Pick<OutboxKick, 'cardStaged'>;
  achievements?: AchievementHook | undefined;
  logger: { warn(obj: object, msg: string): void };
}

/**
 * Records one answer: reschedules the card with the user's algorithm (compare-and-set on the review
 * count, so concurrent answers never apply to the same prior state), stages card.reviewed in the same
 * write, logs the review, counts the study day, and lets achievements look at the new activity.
 */
export async function reviewCard(
  cmd: ReviewCardCommand,
  deps: ReviewCardDeps,
): Promise<{ card: Card; outcome: ReviewOutcome; achievements: string[] }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const card = await deps.cards.findActive(cmd.userId, cmd.cardId);
    if (!card) throw new AppError('NOT_FOUND', 'Flashcard not found');
    const now = deps.clock.now();
    const outcome = scheduleReview(cmd.algorithm, card, cmd.grade, now);
    const event = makeEvent(
      'card.reviewed',
      {
        userId: cmd.userId,
        cardId: card.id,
        correct: outcome.correct,
        masteryLevel: outcome.state.masteryLevel,
        nextReviewDate: outcome.state.nextReviewDate.toISOString(),
      },
      { now },
    );
    const updated = await deps.cards.update(
      cmd.userId,
      card.id,
      { ...outcome.state, updatedAt: now },
      { where: { timesReviewed: card.timesReviewed }, events: [event] },
    );
    if (!updated) continue; // another answer got there first: reschedule from the new state
    deps.outbox.cardStaged(card.id);
    await deps.reviews.insert({
      id: randomUUID(),
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
    });
    const streak = await deps.profiles.recordStudyDay(cmd.userId, utcDay(now), now);
    const achievements = await unlockAchievements(
      cmd.userId,
      deps,
      streak && { streakDays: bestStreak(streak) },
    );
    return { card: updated, outcome, achievements };
  }
  throw new AppError('CONFLICT', 'The card is being reviewed concurrently; try again');
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
