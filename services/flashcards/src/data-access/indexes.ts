import type { IndexSpec } from '@lingua/mongo';
import { CARDS_COLLECTION } from './card.model';

/**
 * Every index of the flashcards database, in one place: built and awaited at start (startService);
 * one that cannot be built keeps the service not-ready and is named in the log.
 */
export const flashcardsIndexes: IndexSpec[] = [
  // the due queries (Group B due/next-review, Group C learning/due): one user's active cards by due date
  { collection: CARDS_COLLECTION, key: { userId: 1, isArchived: 1, nextReviewDate: 1 } },
  // the lists, newest first, for one user (Group B) or one set (Group C)
  { collection: CARDS_COLLECTION, key: { userId: 1, isArchived: 1, createdAt: -1 } },
  { collection: CARDS_COLLECTION, key: { userId: 1, setId: 1, isArchived: 1, createdAt: -1 } },
  // the case-insensitive duplicate check on create
  { collection: CARDS_COLLECTION, key: { userId: 1, wordKey: 1 } },
  // the outbox relay's only query, on both collections whose documents carry staged events
  { collection: CARDS_COLLECTION, key: { _outboxPending: 1 } },
  { collection: 'achievement_unlocks', key: { _outboxPending: 1 } },
  { collection: 'learning_profiles', key: { _outboxPending: 1 } },
  // the reminder scheduler's query: users whose next reminder is due, oldest first (only users with
  // reminders on hold the field: ADR 0028)
  { collection: 'learning_profiles', key: { nextReminderAt: 1 }, sparse: true },
  // one user's sets, newest first
  { collection: 'card_sets', key: { userId: 1, createdAt: -1 } },
  // stats and session results read one user's reviews over a time window
  { collection: 'reviews', key: { userId: 1, reviewedAt: 1 } },
  // the achievement check after a review counts the user's first reviews (cards learned), stopping
  // at the highest locked threshold: without it the count reads every review of the user
  { collection: 'reviews', key: { userId: 1, firstReview: 1 } },
  // erasing a user's sessions
  { collection: 'learning_sessions', key: { userId: 1 } },
  // the same test on the same card in the same study day is recorded once (second → 409)
  { collection: 'study_tests', key: { userId: 1, studyDate: 1, flashcardId: 1, testType: 1 }, unique: true },
  // the board and the erase read one user's unlocks
  { collection: 'achievement_unlocks', key: { userId: 1 } },
  // claimed XP and the erase read one user's claims
  { collection: 'achievement_claims', key: { userId: 1 } },
];
