import { createHash } from 'node:crypto';
import { EVENT_NAMES, makeEvent } from '@lingua/contracts';
import type { AchievementDeps } from './achievement-store';
import { type LearnerProgress, newlyEarned, progressNeeded } from './achievement-rules';

/** One event id per (user, achievement): a re-staged unlock could only ever repeat the same id. */
export function unlockEventId(userId: string, achievementId: string): string {
  const h = createHash('sha1').update(`achievement.unlocked:${userId}:${achievementId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Checks the unlock rules against the learner's progress and unlocks what is newly earned.
 * Each unlock is its own conditional write with its `achievement.unlocked` event staged inside,
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
  const unlocked: string[] = [];
  for (const achievement of earned) {
    const now = deps.now();
    const event = makeEvent(
      EVENT_NAMES.achievementUnlocked,
      { userId, achievementId: achievement.id, name: achievement.name, xp: achievement.xp },
      { id: unlockEventId(userId, achievement.id), now },
    );
    if (await deps.store.unlock(userId, achievement.id, achievement.xp, now, event))
      unlocked.push(achievement.id);
  }
  if (unlocked.length > 0) deps.kickOutbox();
  return unlocked;
}
