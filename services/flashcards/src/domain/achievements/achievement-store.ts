import type { AnyDomainEvent } from '@lingua/contracts';
import type { LearningProfileRepository, ReviewRepository } from '../ports';
import { bestStreak, type LearnerProgress, type ProgressNeed } from './achievement-rules';

export interface StoredUnlock {
  unlockedAt: Date;
  claimedAt: Date | null;
  xp: number;
}

/** What the achievement use cases need from storage (implemented in data-access). */
export interface AchievementStore {
  get(userId: string): Promise<{ unlocks: Map<string, StoredUnlock>; claimedXp: number }>;
  /** The ids of the user's unlocked achievements (one read, no claims). */
  unlockedIds(userId: string): Promise<Set<string>>;
  unlock(
    userId: string,
    achievementId: string,
    xp: number,
    now: Date,
    event: AnyDomainEvent,
  ): Promise<boolean>;
  claim(
    userId: string,
    achievementId: string,
    now: Date,
  ): Promise<
    { status: 'claimed'; claimedXp: number } | { status: 'not_unlocked' } | { status: 'already_claimed' }
  >;
}

export interface AchievementDeps {
  store: AchievementStore;
  /**
   * The learner's numbers, read from the learning data (reviews, streak). With `need`, only what it
   * asks, each count stopping at its cap (0 for a category not asked): an evaluation after every
   * review reads what can still unlock something, never more index entries than the highest locked
   * threshold however many reviews the learner has. `known` numbers (the streak the review just
   * wrote) are not read again.
   */
  progressOf(userId: string, need?: ProgressNeed, known?: Partial<LearnerProgress>): Promise<LearnerProgress>;
  /** XP earned by studying (learning profile), added to claimed achievement XP for the total. */
  studyXpOf(userId: string): Promise<number>;
  now(): Date;
  /** Publishes staged events right away instead of at the next relay poll. */
  kickOutbox(): void;
}

/** The achievement use cases' dependencies, over the learning data of the same service. */
export function achievementDepsOver(ports: {
  store: AchievementStore;
  profiles: Pick<LearningProfileRepository, 'get'>;
  reviews: Pick<ReviewRepository, 'countUpTo'>;
  now(): Date;
  kickOutbox(): void;
}): AchievementDeps {
  return {
    store: ports.store,
    async progressOf(userId, need, known = {}): Promise<LearnerProgress> {
      // without `need`, every category, uncapped (the board)
      const asked = (c: keyof ProgressNeed) => need === undefined || need[c] !== undefined;
      const [streakDays, totalReviews, cardsLearned] = await Promise.all([
        !asked('streak') ? 0 : (known.streakDays ?? ports.profiles.get(userId).then(bestStreak)),
        !asked('reviews') ? 0 : ports.reviews.countUpTo(userId, 'reviews', need?.reviews),
        !asked('cards_learned') ? 0 : ports.reviews.countUpTo(userId, 'firstReviews', need?.cards_learned),
      ]);
      return { streakDays, totalReviews, cardsLearned };
    },
    studyXpOf: async (userId) => (await ports.profiles.get(userId)).xp,
    now: ports.now,
    kickOutbox: ports.kickOutbox,
  };
}
