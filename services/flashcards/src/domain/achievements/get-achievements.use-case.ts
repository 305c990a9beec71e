import { achievementBoard } from './achievement-rules';
import type { AchievementDeps } from './achievement-store';
import { evaluateAchievements } from './evaluate-achievements.use-case';

/**
 * The learner's board: unlocked, locked (with progress) and recent. It evaluates the rules first,
 * so an unlock the review hook missed (crash, older data) still appears, still exactly once.
 */
export async function getAchievements(
  userId: string,
  deps: AchievementDeps & { onEvaluationError?: (err: unknown) => void },
) {
  // the board still answers if evaluating fails; the next activity or visit unlocks what is due
  await evaluateAchievements(userId, deps).catch((err: unknown) => deps.onEvaluationError?.(err));
  const [progress, current] = await Promise.all([deps.progressOf(userId), deps.store.get(userId)]);
  return achievementBoard(progress, current.unlocks, deps.now());
}
