/** Implemented by achievements (part 2): called after each review and at session end. */
export interface AchievementHook {
  /**
   * Evaluates the unlock rules for the user; returns the ids of achievements unlocked by this call.
   * `known`: numbers the activity just wrote (the streak after a review), not read again.
   */
  onActivity(
    userId: string,
    known?: { streakDays?: number },
  ): Promise<string[] /* unlocked achievement ids */>;
  /**
   * The same evaluation split around a review's writes, so that its reads travel alongside them
   * instead of after them (absent: onActivity once the review is written).
   */
  inSteps?(userId: string): ReviewAchievements;
}

/** An evaluation in three steps, each run alongside one step of the review; none of them throws. */
export interface ReviewAchievements {
  /** With the card's read: what is unlocked already. */
  read(): Promise<void>;
  /** With the card's write: the counts that can still unlock something, without this review. */
  count(): Promise<void>;
  /** With the review's other writes: unlocks what the counts plus this review earn; the ids unlocked. */
  unlock(review: {
    reviews: number;
    cardsLearned: number;
    streakDays?: number | undefined;
  }): Promise<string[]>;
}
