/** What an achievement measures; each maps to one number of the learner's progress. */
export type AchievementCategory = 'streak' | 'cards_learned' | 'reviews';

export interface AchievementDefinition {
  id: string;
  name: string;
  description: string;
  category: AchievementCategory;
  /** Unlocked when the category's progress reaches this value. */
  threshold: number;
  /** XP granted when the unlocked achievement is claimed. */
  xp: number;
}

const def = (
  id: string,
  name: string,
  category: AchievementCategory,
  threshold: number,
  xp: number,
  description: string,
): AchievementDefinition => ({ id, name, description, category, threshold, xp });

/** The catalogue. Ids are stable (clients and stored unlocks refer to them): add, never rename. */
export const ACHIEVEMENTS: readonly AchievementDefinition[] = [
  def('streak_3', 'Warming Up', 'streak', 3, 30, 'Study 3 days in a row'),
  def('streak_7', 'One Week Strong', 'streak', 7, 70, 'Study 7 days in a row'),
  def('streak_30', 'Monthly Habit', 'streak', 30, 300, 'Study 30 days in a row'),
  def('streak_100', 'Unstoppable', 'streak', 100, 1000, 'Study 100 days in a row'),
  def('cards_learned_1', 'First Steps', 'cards_learned', 1, 10, 'Learn your first card'),
  def('cards_learned_10', 'Word Collector', 'cards_learned', 10, 50, 'Learn 10 cards'),
  def('cards_learned_50', 'Growing Vocabulary', 'cards_learned', 50, 150, 'Learn 50 cards'),
  def('cards_learned_100', 'Centurion', 'cards_learned', 100, 250, 'Learn 100 cards'),
  def('cards_learned_500', 'Lexicon', 'cards_learned', 500, 750, 'Learn 500 cards'),
  def('cards_learned_1000', 'Walking Dictionary', 'cards_learned', 1000, 1500, 'Learn 1000 cards'),
  def('reviews_10', 'Getting Started', 'reviews', 10, 20, 'Complete 10 reviews'),
  def('reviews_100', 'Dedicated Learner', 'reviews', 100, 100, 'Complete 100 reviews'),
  def('reviews_500', 'Review Machine', 'reviews', 500, 300, 'Complete 500 reviews'),
  def('reviews_1000', 'Thousand Reviews', 'reviews', 1000, 500, 'Complete 1000 reviews'),
  def('reviews_5000', 'Memory Master', 'reviews', 5000, 1500, 'Complete 5000 reviews'),
];

const BY_ID = new Map(ACHIEVEMENTS.map((a) => [a.id, a]));

export const findAchievement = (id: string): AchievementDefinition | undefined => BY_ID.get(id);
