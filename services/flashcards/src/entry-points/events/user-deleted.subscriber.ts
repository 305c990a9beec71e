import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { parseInput } from '@lingua/errors';
import { EraseUserDataInput, eraseUserData } from '../../domain/erase-user-data.use-case';
import type { FlashcardsDeps } from '../http/deps';

/** Durable consumer: a deleted account's cards, sets, reviews, sessions and records are erased. */
export const userDeletedSubscriber = (deps: FlashcardsDeps): ConsumerDefinition => ({
  durable: 'flashcards-user-deleted',
  events: ['user.deleted'],
  handler: (event) =>
    eraseUserData(
      parseInput(EraseUserDataInput, { userId: (event as DomainEvent<'user.deleted'>).data.userId }),
      deps,
    ),
});
