import type { AnyDomainEvent } from '@lingua/contracts';
import type { CardCounts } from './cards/card-counts';
import type { ExportDeps } from './portability/export-cards.use-case';
import type { ImportDeps } from './portability/import-cards.use-case';
import type { FsrsMemory } from './scheduling/schedule-state';

/**
 * What the flashcards use cases and routes need from storage: the records as plain objects and the
 * stores' interfaces. The domain owns them; data-access implements them (mongoose, Redis); start.ts
 * wires the implementations in.
 */

/**
 * One card model for both API faces: Group B cards have `setId: null`, Group C cards belong to a set.
 * `synonyms` is JSON text (spec: "stored as JSON text"); `wordKey` is the lower-cased word for the
 * case-insensitive duplicate check.
 */
export interface Card {
  id: string;
  userId: string;
  setId: string | null;
  word: string;
  wordKey: string;
  translation: string;
  definition: string;
  partOfSpeech: string | null;
  pronunciation: string | null;
  example: string | null;
  exampleTranslation: string | null;
  synonyms: string;
  tags: string[];
  /** CEFR level (A1…C2) or null. */
  difficultyLevel: string | null;
  /** Group C difficulty (beginner/intermediate/advanced), derived from the CEFR level when absent. */
  difficulty: string | null;
  masteryLevel: number;
  timesReviewed: number;
  timesCorrect: number;
  isFavorite: boolean;
  isArchived: boolean;
  easinessFactor: number;
  repetitions: number;
  intervalDays: number;
  lastReviewedAt: Date | null;
  nextReviewDate: Date;
  /** FSRS memory state, kept only for users who schedule with FSRS (ts-fsrs `Card` without `due`). */
  fsrs: FsrsMemory | null;
  filledQuestionText: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One answered review: the append-only log behind learning stats (and a later algorithm switch). */
export interface ReviewRecord {
  id: string;
  userId: string;
  cardId: string;
  setId: string | null;
  sessionId: string | null;
  algorithm: string;
  grade: string;
  /** Group C rating 1-5 or Group B confidence 0-2, as sent. */
  rating: number;
  correct: boolean;
  responseTimeMs: number;
  mode: string | null;
  intervalDays: number;
  masteryLevel: number;
  /** The card's first review ever ("cards learned"). */
  firstReview: boolean;
  /** This review took the card to mastered ("cards mastered"). */
  becameMastered: boolean;
  reviewedAt: Date;
}

/** Per-user learning settings and running totals (streak, XP), one document per user. */
export interface LearningProfile {
  userId: string;
  algorithm: 'exponential' | 'sm2' | 'fsrs';
  dailyGoal: number;
  currentStreak: number;
  longestStreak: number;
  /** Local day (YYYY-MM-DD, in the user's zone at the time) of the last review. */
  lastStudyDay: string | null;
  /** The user's IANA time zone as identity's profile has it (null: none set). */
  timezone: string | null;
  /** The daily study reminder as identity's settings have it: on or off, and its local "HH:MM". */
  reminderEnabled: boolean;
  reminderTime: string;
  /** The next instant a reminder is due (null: reminders off); recomputed when what decides it changes. */
  nextReminderAt: Date | null;
  xp: number;
  updatedAt: Date;
}

/** A Group C learning session: started with a mode, ended once. */
export interface LearningSession {
  id: string;
  userId: string;
  mode: string;
  setId: string | null;
  cardIds: string[];
  startedAt: Date;
  endedAt: Date | null;
  result: SessionResult | null;
}

/** A Group C card set (deck). */
export interface CardSet {
  id: string;
  userId: string;
  name: string;
  description: string;
  color: string | null;
  tags: string[];
  isPublic: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A Group B study test taken on a card (one question type on one study day). */
export interface StudyTest {
  id: string;
  userId: string;
  flashcardId: string;
  testType: string;
  studyDate: string;
  isCorrect: boolean;
  completedAt: Date;
}

export interface SessionResult {
  duration: number;
  cardsStudied: number;
  accuracy: number;
  xpEarned: number;
  achievements: string[];
}

export type NewCard = Omit<Card, 'wordKey'>;

export interface CardListFilter {
  setId?: string | null;
  search?: string;
  /** Group B search is case-sensitive (spec); Group C search is not. */
  caseSensitive?: boolean;
  tags?: string[];
  difficulty?: string;
  mastered?: boolean;
  favorite?: boolean;
  dueBefore?: Date;
  notDueBefore?: Date;
  masteredAt: number;
}

export interface DueQuery {
  from?: Date;
  to: Date;
  favoritesOnly?: boolean;
  setId?: string;
  limit: number;
}

/** What a set's stats count: mastered at or above `masteredAt`, due at or before `dueAt`. */
export interface SetTallyRule {
  masteredAt: number;
  dueAt: Date;
}

/** One set's active cards, counted where they are stored: the service gets one row per set, not the cards. */
export interface SetTally {
  setId: string;
  total: number;
  mastered: number;
  due: number;
  masterySum: number;
}

/** Cards, every query scoped to the owner (another user's card is simply "not found"). */
export interface CardRepository {
  /** Stages the events in the same single-document write (outbox). */
  insert(card: NewCard, events?: AnyDomainEvent[]): Promise<Card>;
  insertMany(cards: NewCard[]): Promise<void>;
  findActive(userId: string, id: string): Promise<Card | null>;
  findActiveMany(userId: string, ids: string[]): Promise<Card[]>;
  /** The user's non-archived card with this word, compared case-insensitively. */
  findDuplicate(userId: string, word: string, exceptId?: string): Promise<Card | null>;
  list(
    userId: string,
    filter: CardListFilter,
    page: { skip: number; limit: number },
  ): Promise<{ items: Card[]; total: number }>;
  due(userId: string, q: DueQuery): Promise<Card[]>;
  countDue(userId: string, to: Date, setId?: string): Promise<number>;
  /** Cards never reviewed yet (session mode "learn"), oldest first. */
  unreviewed(userId: string, limit: number, setId?: string): Promise<Card[]>;
  /** The weakest cards first (session mode "cram"). */
  weakest(userId: string, limit: number, setId?: string): Promise<Card[]>;
  /** Translations of other cards of the user: distractors for multiple-choice questions. */
  otherTranslations(userId: string, exceptId: string, limit: number): Promise<string[]>;
  /**
   * Applies a change to an active card of the user and returns it, or null when it does not exist.
   * `where` makes it a compare-and-set; events are staged in the same write.
   */
  update(
    userId: string,
    id: string,
    set: Partial<Omit<Card, 'id' | 'userId'>>,
    options?: {
      where?: Partial<Pick<Card, 'timesReviewed' | 'isFavorite'>>;
      events?: AnyDomainEvent[];
      /** A review's write: which review it was, kept with the card (see `lastReview`). */
      lastReview?: LastReview;
    },
  ): Promise<Card | null>;
  /**
   * `update` without the read models: persists the change to the card and nothing else, and returns
   * what the read models need of it (CardReadModels.written), or null as `update` does.
   */
  write(
    userId: string,
    id: string,
    set: Partial<Omit<Card, 'id' | 'userId'>>,
    options?: Parameters<CardRepository['update']>[3],
  ): Promise<CardWrite | null>;
  /** The last review written with the card (answers a retry of it), or null. */
  lastReview(userId: string, id: string): Promise<LastReview | null>;
  /** Whether the card exists for the user, archived or not. */
  exists(userId: string, id: string): Promise<boolean>;
  updateMany(userId: string, ids: string[], set: Partial<Omit<Card, 'id'>>): Promise<number>;
  /** After a bulk write elsewhere changed these cards' content (not their schedule or state). */
  contentChanged(userId: string, ids: string[]): Promise<void>;
  /** After a bulk write elsewhere whose effect is not known card by card: derived data is rebuilt. */
  invalidateDerived(userId: string): Promise<void>;
  /** Per set with active cards: the tally of those cards by the rule (sets without cards are absent). */
  tallySets(userId: string, setIds: string[], rule: SetTallyRule): Promise<SetTally[]>;
  deleteSetCards(userId: string, setId: string): Promise<number>;
  deleteAllOfUser(userId: string): Promise<number>;
}

/** One card write as the database applied it: the card before and after, and the write's revision. */
export interface CardWrite {
  /** null: the write created the card. */
  before: Card | null;
  card: Card;
  /** The card document's revision after this write (orders writes that reach a read model late). */
  revision: number;
}

/**
 * The read models kept from card writes (the owner's card counters, the due index), behind one
 * port: a use case that persists a card with `CardRepository.write` tells them here, alongside its
 * other writes. Each is self-repairing (a failure drops it to be rebuilt from the cards).
 */
export interface CardReadModels {
  written(userId: string, writes: CardWrite[]): Promise<void>;
}

/** The last review of a card, kept in the card's own write: its id, the count it followed, its result. */
export interface LastReview {
  id: string;
  timesReviewed: number;
  correct: boolean;
}

/** The per-user card counters the card repository keeps. */
export interface CardCounters {
  /** After a card write: applies its change (never throws; a failure drops the counters to be recounted). */
  add(userId: string, change: CardCounts): Promise<void>;
  /** After a write whose change to the counts is not known card by card: recount on the next read. */
  invalidate(userId: string): Promise<void>;
  read(userId: string): Promise<CardCounts | null>;
  /** Counts the user's cards and stores the result. */
  rebuild(userId: string): Promise<CardCounts>;
  /** On user.deleted (after the cards). */
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface SetRepository {
  insert(set: CardSet): Promise<CardSet>;
  find(userId: string, id: string): Promise<CardSet | null>;
  listAll(userId: string): Promise<CardSet[]>;
  count(userId: string): Promise<number>;
  update(userId: string, id: string, set: Partial<Omit<CardSet, 'id'>>): Promise<CardSet | null>;
  remove(userId: string, id: string): Promise<boolean>;
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface ReviewRepository {
  /** Idempotent by the review's id: false when the log already holds it. */
  insert(review: ReviewRecord): Promise<boolean>;
  /** Reviews of the user in [from, to), optionally of one set, with the fields stats need. */
  between(
    userId: string,
    from: Date | undefined,
    to: Date,
    setId?: string,
  ): Promise<
    Pick<
      ReviewRecord,
      'cardId' | 'correct' | 'responseTimeMs' | 'firstReview' | 'becameMastered' | 'reviewedAt'
    >[]
  >;
  /**
   * How many reviews the user answered, or how many of them were a card's first (cards learned);
   * with `cap`, stopping there (reads no more than `cap` entries of an index).
   */
  countUpTo(userId: string, what: 'reviews' | 'firstReviews', cap?: number): Promise<number>;
  /** The user's reviews in [from, to), counted up to `cap` at most. */
  countBetween(userId: string, from: Date, to: Date, cap: number): Promise<number>;
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface SessionRepository {
  insert(session: LearningSession): Promise<void>;
  find(userId: string, id: string): Promise<LearningSession | null>;
  /** Ends an open session; null when it was already ended (the caller returns the stored result). */
  end(userId: string, id: string, endedAt: Date, result: SessionResult): Promise<LearningSession | null>;
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface StudyTestRepository {
  /** Throws CONFLICT (409) when the unique index already holds this test. */
  insert(test: StudyTest): Promise<StudyTest>;
  forDay(userId: string, studyDate: string): Promise<StudyTest[]>;
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface LearningProfileRepository {
  get(userId: string): Promise<LearningProfile>;
  updateSettings(
    userId: string,
    settings: Partial<
      Pick<
        LearningProfile,
        'algorithm' | 'dailyGoal' | 'timezone' | 'reminderEnabled' | 'reminderTime' | 'nextReminderAt'
      >
    >,
    now: Date,
  ): Promise<LearningProfile>;
  /**
   * Counts the day of `reviewedAt` towards the streak (compare-and-set on lastStudyDay), the day in
   * the profile's zone, else `requestZone`, else UTC; returns the streak as stored after it, or
   * undefined when concurrent writers kept it from knowing.
   */
  recordStudyDay(
    userId: string,
    reviewedAt: Date,
    now: Date,
    requestZone?: string,
    /** The profile as the caller just read it: the first attempt does not read it again. */
    known?: LearningProfile,
  ): Promise<{ currentStreak: number; longestStreak: number } | undefined>;
  /** Adds XP once per grant (a session's id): a repeated grant changes nothing. */
  addXp(userId: string, xp: number, now: Date, grantId: string): Promise<void>;
  deleteAllOfUser(userId: string): Promise<number>;
}

/** Free users' daily export counters (a slot is reserved before an export, released if it fails). */
export interface ExportQuotaStore {
  reserve(
    userId: string,
    day: string,
    limit: number,
    ttlSeconds: number,
  ): Promise<{ allowed: boolean; used: number }>;
  release(userId: string, day: string): Promise<void>;
  used(userId: string, day: string): Promise<number>;
  eraseUser(userId: string): Promise<void>;
}

/** Sets a user may hold: lists are computed in memory (progress ordering), so they are capped. */
export const MAX_SETS_PER_USER = 1000;

/** Card queries of export and import (bulk reads by word key, bulk writes with compensation). */
export type PortabilityStore = Omit<ExportDeps, 'quota' | 'now'> & Omit<ImportDeps, 'now'>;

/** Publishes staged events now rather than at the outbox relay's next poll. */
export interface OutboxKick {
  /** Events were staged in this user's card: the relay reads just that card (on the user's shard). */
  cardStaged(cardId: string, userId: string): void;
  /** Events were staged somewhere else: the relay looks for them. */
  any(): void;
}
