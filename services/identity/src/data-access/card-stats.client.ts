import { createGrpcClient } from '@lingua/grpc';
import type { Logger } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';

export interface CardStats {
  totalCards: number;
  dueCards: number;
  masteredCards: number;
  favoriteCards: number;
  /** false when the flashcards service did not answer in time: the counts are zeros, not facts. */
  available: boolean;
}

export interface CardStatsSource {
  forUser(userId: string): Promise<CardStats>;
  close(): void;
}

const ZEROS = { totalCards: 0, dueCards: 0, masteredCards: 0, favoriteCards: 0 };

/** Flashcards' GetCardStats with a short deadline; a profile page must not fail because stats are slow. */
export function grpcCardStats(address: string, deadlineMs: number, logger: Logger): CardStatsSource {
  const client = createGrpcClient(loadPackage().lingua.flashcards.v1.FlashcardsService, address, {
    callerName: 'identity',
    defaultDeadlineMs: deadlineMs,
    idempotentMethods: ['GetCardStats'],
  });
  return {
    async forUser(userId) {
      try {
        const r = await client.call('GetCardStats', { user_id: userId });
        return {
          totalCards: r.total_cards ?? 0,
          dueCards: r.due_cards ?? 0,
          masteredCards: r.mastered_cards ?? 0,
          favoriteCards: r.favorite_cards ?? 0,
          available: true,
        };
      } catch (err) {
        logger.warn({ err }, 'card stats unavailable; answering zeros');
        return { ...ZEROS, available: false };
      }
    },
    close: () => client.close(),
  };
}
