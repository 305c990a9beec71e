import { z } from 'zod';
import { parseInput } from '@lingua/errors';
import { MASTERED_AT } from './scheduling/mastery';

export const CardStatsInput = z.object({ userId: z.string().min(1) });

export interface CardStats {
  totalCards: number;
  dueCards: number;
  masteredCards: number;
  favoriteCards: number;
}

export interface CardCounter {
  count(filter: {
    userId: string;
    dueBefore?: Date;
    minMastery?: number;
    favorite?: boolean;
  }): Promise<number>;
}

export { MASTERED_AT };

/** A user's card counts, for other services (achievements, notifications, AI quotas). */
export async function getCardStats(
  raw: unknown,
  deps: { cards: CardCounter; now: () => Date },
): Promise<CardStats> {
  const { userId } = parseInput(CardStatsInput, raw);
  const [totalCards, dueCards, masteredCards, favoriteCards] = await Promise.all([
    deps.cards.count({ userId }),
    deps.cards.count({ userId, dueBefore: deps.now() }),
    deps.cards.count({ userId, minMastery: MASTERED_AT }),
    deps.cards.count({ userId, favorite: true }),
  ]);
  return { totalCards, dueCards, masteredCards, favoriteCards };
}
