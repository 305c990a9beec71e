import { z } from 'zod';

export const EraseUserDataInput = z.object({ userId: z.string().min(1) });

interface Erasable {
  deleteAllOfUser(userId: string): Promise<number>;
}

/**
 * Erases everything the flashcards service holds about a user (on user.deleted). Idempotent: a
 * redelivered event finds nothing left and succeeds; a failure part-way is retried by the consumer.
 */
export async function eraseUserData(
  input: z.output<typeof EraseUserDataInput>,
  deps: {
    cards: Erasable;
    cardCounts: Erasable;
    sets: Erasable;
    reviews: Erasable;
    sessions: Erasable;
    studyTests: Erasable;
    profiles: Erasable;
    eraseUserExtras?: (userId: string) => Promise<void>;
  },
): Promise<void> {
  const { userId } = input;
  // sets after cards, so a crash in between never leaves cards pointing at a missing set
  await deps.cards.deleteAllOfUser(userId);
  // after the cards: a read in between recounts no cards, and users without cards have no counters
  await deps.cardCounts.deleteAllOfUser(userId);
  await deps.sets.deleteAllOfUser(userId);
  await deps.reviews.deleteAllOfUser(userId);
  await deps.sessions.deleteAllOfUser(userId);
  await deps.studyTests.deleteAllOfUser(userId);
  await deps.profiles.deleteAllOfUser(userId);
  await deps.eraseUserExtras?.(userId);
}
