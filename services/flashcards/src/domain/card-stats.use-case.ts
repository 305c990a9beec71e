import { z } from 'zod';
import type { CardCounts } from './cards/card-counts';

export const CardStatsInput = z.object({ userId: z.string().min(1) });

export interface CardStats {
  totalCards: number;
  dueCards: number;
  masteredCards: number;
  favoriteCards: number;
}

/** Per-user counters kept up to date by every card write (see data-access/card-counters.repository.ts). */
export interface CardCountsStore {
  /** The user's counters; null when there are none to trust (data older than the counters, or dropped). */
  read(userId: string): Promise<CardCounts | null>;
  /** Counts the user's cards, stores the result for the next reads, and returns it. */
  rebuild(userId: string): Promise<CardCounts>;
}

/** "Due" depends on the time of asking, so it is a count, not a counter (an index range count). */
export interface DueCounter {
  countDue(userId: string, at: Date): Promise<number>;
}

/**
 * A user's card counts, for other services (the identity profile): total, mastered and favourites
 * from the counters (rebuilt once from a count when missing), due from the due read model (Redis)
 * or, when it cannot answer, the due-date index.
 */
export async function getCardStats(
  input: z.output<typeof CardStatsInput>,
  deps: { counts: CardCountsStore; due: DueCounter; now: () => Date },
): Promise<CardStats> {
  const { userId } = input;
  const [stored, dueCards] = await Promise.all([
    deps.counts.read(userId),
    deps.due.countDue(userId, deps.now()),
  ]);
  const counts = stored ?? (await deps.counts.rebuild(userId));
  return {
    totalCards: counts.total,
    dueCards,
    masteredCards: counts.mastered,
    favoriteCards: counts.favorite,
  };
}
