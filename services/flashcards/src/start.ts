import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { FlashcardsConfig } from './config';
import { cardCounter } from './data-access/card.repository';
import { registerFlashcardsGrpc } from './entry-points/grpc/flashcards.grpc';

/** Wiring of the flashcards service; the card routes arrive with the flashcards issue. */
export function defineFlashcardsService(config: FlashcardsConfig): ServiceDefinition<FlashcardsConfig> {
  return {
    config,
    grpc: (server, deps) =>
      registerFlashcardsGrpc(server, { cards: cardCounter(deps.mongo.connection), now: () => new Date() }),
  };
}

export const start = (config: FlashcardsConfig) => startService(defineFlashcardsService(config));
