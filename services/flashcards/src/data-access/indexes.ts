import { PROCESSED_EVENTS_COLLECTION } from '@lingua/events';
import { type IndexSpec, platformShardDeclarations, type ShardDeclaration } from '@lingua/mongo';
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

/** How each collection of the flashcards database is sharded, or why it is not (ADR 0030). */
export const flashcardsShardKeys: ShardDeclaration[] = [
  {
    collection: CARDS_COLLECTION,
    key: { userId: 1, _id: 1 },
    why: 'every card query names its user (due, lists, review, duplicate check); ranged so a user with thousands of cards splits into several chunks',
  },
  {
    collection: 'reviews',
    key: { userId: 1, _id: 1 },
    why: 'one document per review, the fastest-growing collection; stats and achievements read one user; ranged so a heavy user splits',
  },
  {
    collection: 'study_tests',
    key: { userId: 1, studyDate: 1 },
    why: "one user's tests by study day; the unique { userId, studyDate, flashcardId, testType } index starts with this key",
  },
  { collection: 'card_sets', key: { userId: 'hashed' }, why: 'a few sets per user, always read by user' },
  { collection: 'learning_sessions', key: { userId: 'hashed' }, why: 'read and written by user and session' },
  {
    collection: 'achievement_unlocks',
    key: { userId: 'hashed' },
    why: 'the board and the check read one user',
  },
  { collection: 'achievement_claims', key: { userId: 'hashed' }, why: 'claimed XP is read by user' },
  {
    collection: 'learning_profiles',
    key: { _id: 'hashed' },
    why: "one per user, _id is the user id; the reminder scheduler's due query is the one broadcast",
  },
  {
    collection: 'card_counters',
    key: { _id: 'hashed' },
    why: 'one per user, _id is the user id, read and written by it',
  },
  ...platformShardDeclarations(PROCESSED_EVENTS_COLLECTION),
];
