import { ACHIEVEMENTS, type AchievementCategory, type AchievementDefinition } from './achievement-catalogue';

/** The learner's numbers the unlock rules look at. */
export interface LearnerProgress {
  /** Best streak of consecutive study days (the longest, so a broken streak keeps what it earned). */
  streakDays: number;
  /** Cards reviewed at least once. */
  cardsLearned: number;
  /** Reviews answered, all cards together. */
  totalReviews: number;
}

export function progressFor(category: AchievementCategory, progress: LearnerProgress): number {
  switch (category) {
    case 'streak':
      return progress.streakDays;
    case 'cards_learned':
      return progress.cardsLearned;
    case 'reviews':
      return progress.totalReviews;
  }
}

/** The streak an achievement counts: the longest, so a broken streak keeps what it earned. */
export const bestStreak = (s: { currentStreak: number; longestStreak: number }) =>
  Math.max(s.longestStreak, s.currentStreak);

/**
 * What an evaluation still has to read: per category with an achievement still locked, the highest
 * locked threshold (a count can stop there: more changes nothing). A category whose achievements are
 * all unlocked is absent, and is not read at all.
 */
export type ProgressNeed = Partial<Record<AchievementCategory, number>>;

export function progressNeeded(
  unlockedIds: ReadonlySet<string>,
  catalogue: readonly AchievementDefinition[] = ACHIEVEMENTS,
): ProgressNeed {
  const need: ProgressNeed = {};
  for (const a of catalogue)
    if (!unlockedIds.has(a.id)) need[a.category] = Math.max(need[a.category] ?? 0, a.threshold);
  return need;
}

/** Achievements the progress has earned that are not unlocked yet, in catalogue order. */
export function newlyEarned(
  progress: LearnerProgress,
  unlockedIds: ReadonlySet<string>,
  catalogue: readonly AchievementDefinition[] = ACHIEVEMENTS,
): AchievementDefinition[] {
  return catalogue.filter((a) => !unlockedIds.has(a.id) && progressFor(a.category, progress) >= a.threshold);
}

/** Level from total XP: level n starts at 100·(n-1)² XP (1 at 0, 2 at 100, 3 at 400, 4 at 900…). */
export function levelForXp(totalXp: number): number {
  return Math.floor(Math.sqrt(Math.max(0, totalXp) / 100)) + 1;
}

/** How long an unlock stays in the "recent" list, and how many it shows. */
export const RECENT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
export const RECENT_MAX = 5;

export interface UnlockRecord {
  unlockedAt: Date;
  claimedAt: Date | null;
}

export interface AchievementView {
  id: string;
  name: string;
  description: string;
  category: AchievementCategory;
  xp: number;
  progress: { current: number; target: number; percent: number };
  unlocked: boolean;
  unlockedAt: string | null;
  claimed: boolean;
  claimedAt: string | null;
}

/** The GET /achievements answer: unlocked (newest first), locked (closest first), recent. */
export function achievementBoard(
  progress: LearnerProgress,
  unlocks: ReadonlyMap<string, UnlockRecord>,
  now: Date,
  catalogue: readonly AchievementDefinition[] = ACHIEVEMENTS,
): { unlocked: AchievementView[]; locked: AchievementView[]; recent: AchievementView[] } {
  const views = catalogue.map((a): AchievementView => {
    const current = progressFor(a.category, progress);
    const record = unlocks.get(a.id);
    return {
      id: a.id,
      name: a.name,
      description: a.description,
      category: a.category,
      xp: a.xp,
      progress: {
        current: Math.min(current, a.threshold),
        target: a.threshold,
        percent: Math.min(100, Math.floor((current / a.threshold) * 100)),
      },
      unlocked: record !== undefined,
      unlockedAt: record ? record.unlockedAt.toISOString() : null,
      claimed: Boolean(record?.claimedAt),
      claimedAt: record?.claimedAt ? record.claimedAt.toISOString() : null,
    };
  });
  const unlocked = views
    .filter((v) => v.unlocked)
    .sort((a, b) => (b.unlockedAt ?? '').localeCompare(a.unlockedAt ?? ''));
  const locked = views.filter((v) => !v.unlocked).sort((a, b) => b.progress.percent - a.progress.percent);
  const since = now.getTime() - RECENT_WINDOW_MS;
  const recent = unlocked.filter((v) => Date.parse(v.unlockedAt ?? '') >= since).slice(0, RECENT_MAX);
  return { unlocked, locked, recent };
}
