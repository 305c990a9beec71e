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
}
