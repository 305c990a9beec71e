import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  CardStatsInput,
  type CardCountsStore,
  type DueCounter,
  getCardStats,
} from '../../domain/card-stats.use-case';

/** FlashcardsService; each RPC names the services that may call it (identity: a profile's counts). */
export function registerFlashcardsGrpc(
  server: GrpcServer,
  deps: { counts: CardCountsStore; due: DueCounter; now: () => Date },
): void {
  server.addService(
    loadPackage().lingua.flashcards.v1.FlashcardsService.service,
    {
      GetCardStats: async (req) => {
        const s = await getCardStats(parseInput(CardStatsInput, { userId: req.user_id }), deps);
        return {
          total_cards: s.totalCards,
          due_cards: s.dueCards,
          mastered_cards: s.masteredCards,
          favorite_cards: s.favoriteCards,
        };
      },
    },
    { GetCardStats: ['identity'] },
  );
}
