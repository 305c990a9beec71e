import { AppError } from '@lingua/errors';
import { findAchievement } from './achievement-catalogue';
import { levelForXp } from './achievement-rules';
import type { AchievementDeps } from './achievement-store';

export interface ClaimOutcome {
  achievementId: string;
  xpEarned: number;
  totalXp: number;
  level: number;
  /** Present only when this claim raised the level. */
  newLevel?: number;
}

/** Claims the XP of an unlocked achievement, once. */
export async function claimAchievement(
  userId: string,
  achievementId: string,
  deps: AchievementDeps,
): Promise<ClaimOutcome> {
  const achievement = findAchievement(achievementId);
  if (!achievement) throw new AppError('NOT_FOUND', 'Achievement not found');
  const result = await deps.store.claim(userId, achievement.id, deps.now());
  if (result.status === 'not_unlocked') throw new AppError('CONFLICT', 'Achievement is not unlocked yet');
  if (result.status === 'already_claimed') throw new AppError('CONFLICT', 'Achievement already claimed');
  const totalXp = (await deps.studyXpOf(userId)) + result.claimedXp;
  const level = levelForXp(totalXp);
  const before = levelForXp(totalXp - achievement.xp);
  return {
    achievementId: achievement.id,
    xpEarned: achievement.xp,
    totalXp,
    level,
    ...(level > before && { newLevel: level }),
  };
}
