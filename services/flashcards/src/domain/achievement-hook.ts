/** Implemented by achievements (part 2): called after each review and at session end. */
export interface AchievementHook {
  /** Evaluates the unlock rules for the user; returns the ids of achievements unlocked by this call. */
  onActivity(userId: string): Promise<string[] /* unlocked achievement ids */>;
}
