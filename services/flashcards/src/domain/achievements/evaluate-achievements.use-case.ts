import { createHash } from 'node:crypto';
import { EVENT_NAMES, makeEvent } from '@lingua/contracts';
import type { ReviewAchievements } from '../achievement-hook';
import type { AchievementDefinition } from './achievement-catalogue';
import type { AchievementDeps } from './achievement-store';
import { type LearnerProgress, newlyEarned, progressNeeded } from './achievement-rules';

/** One event id per (user, achievement): a re-staged unlock could only ever repeat the same id. */
export function unlockEventId(userId: string, achievementId: string): string {
  const h = createHash('sha1').update(`achievement.unlocked:${userId}:${achievementId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Checks the unlock rules against the learner's progress and unlocks what is newly earned.
 * Each unlock is its own conditional write with its `achievement.unlocked` event staged inside
 * (all of them at once),
 * so an achievement is unlocked, and announced, exactly once however often this runs. It reads only
 * what can still unlock something (progressNeeded): nothing more once everything is unlocked.
 * `known`: numbers the caller has just written (the streak), not read again. Returns the ids
 * unlocked by this call.
 */
export async function evaluateAchievements(
  userId: string,
  deps: AchievementDeps,
  known?: Partial<LearnerProgress>,
): Promise<string[]> {
  const unlockedIds = await deps.store.unlockedIds(userId);
  const need = progressNeeded(unlockedIds);
  if (Object.keys(need).length === 0) return [];
  const progress = await deps.progressOf(userId, need, known);
  const earned = newlyEarned(progress, unlockedIds);
  return unlockEarned(userId, earned, deps);
}

/** One conditional write per earned achievement, all at once (each its own document). */
async function unlockEarned(
  userId: string,
  earned: readonly AchievementDefinition[],
  deps: AchievementDeps,
): Promise<string[]> {
  const now = deps.now();
  const done = await Promise.all(
    earned.map((achievement) =>
      deps.store.unlock(
        userId,
        achievement.id,
        achievement.xp,
        now,
        makeEvent(
          EVENT_NAMES.achievementUnlocked,
          { userId, achievementId: achievement.id, name: achievement.name, xp: achievement.xp },
          { id: unlockEventId(userId, achievement.id), now },
        ),
      ),
    ),
  );
  const unlocked = earned.filter((_, i) => done[i]).map((a) => a.id);
  if (unlocked.length > 0) deps.kickOutbox();
  return unlocked;
}

/**
 * evaluateAchievements split around a review's writes (ReviewAchievements): the unlocked ids are read
 * with the card, the counts (capped as ever) with the card's write, and the unlocks go with the
 * review's other writes. The counts are taken before the review's log entry lands, so the review
 * itself is added; a concurrent review of another card may be missed, and is counted at the next
 * activity, as in any evaluation that loses a race. A failed read unlocks nothing (logged): the
 * next activity evaluates again.
 */
export function evaluateAchievementsInSteps(
  userId: string,
  deps: AchievementDeps,
  onError: (err: unknown) => void,
): ReviewAchievements {
  let unlockedIds: Promise<Set<string> | null> = Promise.resolve(null);
  let progress: Promise<LearnerProgress | null> = Promise.resolve(null);
  return {
    async read() {
      unlockedIds = deps.store.unlockedIds(userId).catch((err: unknown) => (onError(err), null));
      await unlockedIds;
    },
    async count() {
      progress = unlockedIds.then(async (ids) => {
        if (!ids) return null;
        const need = progressNeeded(ids);
        if (Object.keys(need).length === 0) return null;
        // the streak is the review's own (given to unlock), never read here
        return deps.progressOf(userId, need, { streakDays: 0 }).catch((err: unknown) => (onError(err), null));
      });
      await progress;
    },
    async unlock(review) {
      const [ids, before] = await Promise.all([unlockedIds, progress]);
      if (!ids || !before) return [];
      const earned = newlyEarned(
        {
          streakDays: review.streakDays ?? 0,
          totalReviews: before.totalReviews + review.reviews,
          cardsLearned: before.cardsLearned + review.cardsLearned,
        },
        ids,
      );
      return unlockEarned(userId, earned, deps).catch((err: unknown) => (onError(err), []));
    },
  };
}
