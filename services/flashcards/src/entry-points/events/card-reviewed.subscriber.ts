import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { completeReviewFromEvent } from '../../domain/review-card.use-case';
import type { FlashcardsDeps } from '../http/deps';

/**
 * Durable consumer of flashcards' own card.reviewed: completes a review whose process died after the
 * card's write (review log, study day, achievements; ADR 0023). Every step is idempotent, so the
 * reviews completed in the request (nearly all) cost a duplicate-key insert and a profile read.
 */
export const cardReviewedSubscriber = (deps: FlashcardsDeps): ConsumerDefinition => ({
  durable: 'flashcards-card-reviewed',
  events: ['card.reviewed'],
  idempotent: true,
  concurrency: 4,
  // one user's reviews one after the other: their study days then land in order
  orderingKey: (event) => (event as DomainEvent<'card.reviewed'>).data.userId,
  handler: (event) => completeReviewFromEvent(event as DomainEvent<'card.reviewed'>, deps),
});
