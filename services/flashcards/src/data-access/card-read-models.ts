import { addCounts, countsDelta, isNoChange } from '../domain/cards/card-counts';
import type { CardCounters, CardReadModels, CardWrite } from '../domain/ports';
import type { DueIndex } from './due-index';

/**
 * The read models derived from card writes: the owner's card counters (MongoDB) and the due index
 * (Redis), updated together (one round trip for both). Neither throws for its own failure: the
 * counters drop themselves to be recounted, the due index invalidates itself.
 */
export function cardReadModels(counters: CardCounters, dueIndex?: DueIndex): CardReadModels {
  return {
    async written(userId: string, writes: CardWrite[]): Promise<void> {
      if (writes.length === 0) return;
      const change = writes.map((w) => countsDelta(w.before, w.card)).reduce(addCounts);
      await Promise.all([
        isNoChange(change) ? undefined : counters.add(userId, change),
        dueIndex?.cardsWritten(
          userId,
          writes.map((w) => ({ card: w.card, version: w.revision })),
        ),
      ]);
    },
  };
}

export type { CardReadModels, CardWrite };
