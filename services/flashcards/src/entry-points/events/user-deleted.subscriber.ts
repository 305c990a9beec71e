import type { ConsumerDefinition } from '@lingua/bootstrap';
import type { DomainEvent } from '@lingua/contracts';
import { eraseUserData } from '../../domain/erase-user-data.use-case';
import type { FlashcardsDeps } from '../http/deps';

/** Durable consumer: a deleted account's cards, sets, reviews, sessions and records are erased. */
export const userDeletedSubscriber = (deps: FlashcardsDeps): ConsumerDefinition => ({
  durable: 'flashcards-user-deleted',
  events: ['user.deleted'],
  // deps.eraseUserExtras is read at handling time: part 2 sets it while registering its routes
  handler: (event) =>
    eraseUserData(
      { userId: (event as DomainEvent<'user.deleted'>).data.userId },
      {
        ...deps,
        ...(deps.eraseUserExtras && { eraseUserExtras: deps.eraseUserExtras }),
      },
    ),
});
