import type { RequestHandler, Response } from 'express';
import type { Clock } from '@lingua/auth';
import type { Logger } from '@lingua/logger';
import type { FlashcardsConfig } from '../../config';
import type { AchievementHook } from '../../domain/achievement-hook';
import type { AchievementDeps } from '../../domain/achievements/achievement-store';
import type { ReviewFaults } from '../../domain/review-card.use-case';
import type {
  CardCounters,
  CardReadModels,
  CardRepository,
  ExportQuotaStore,
  LearningProfileRepository,
  OutboxKick,
  PortabilityStore,
  ReviewRepository,
  SessionRepository,
  SetRepository,
  StudyTestRepository,
} from '../../domain/ports';

export type { AchievementHook };

/**
 * What the flashcards routes, consumers and hooks get: the domain's ports, implemented and wired
 * once per running service in start.ts (flashcardsDeps). Nothing sets a field of it afterwards.
 */
export interface FlashcardsDeps {
  config: FlashcardsConfig;
  logger: Logger;
  clock: Clock;
  /** After a write that staged events. */
  outbox: OutboxKick;
  cards: CardRepository;
  /** The read models of card writes (counters, due index), for writes made with `cards.write`. */
  readModels: CardReadModels;
  /** The per-user card counters the card repository keeps (read by GetCardStats, erased with the user). */
  cardCounts: CardCounters;
  sets: SetRepository;
  reviews: ReviewRepository;
  sessions: SessionRepository;
  studyTests: StudyTestRepository;
  profiles: LearningProfileRepository;
  /** Card reads and writes of export and import. */
  portability: PortabilityStore;
  /** Free users' daily export counters; absent without Redis (exports by free users then answer 503). */
  exportQuota: ExportQuotaStore | undefined;
  /** The achievement use cases' dependencies (GET /api/achievements, the claim). */
  achievementDeps: AchievementDeps;
  /** Evaluated after reviews and sessions. */
  achievements: AchievementHook;
  /** Group C: a valid, non-revoked bearer token is required (401 otherwise). */
  requireUser: RequestHandler;
  /** Group B: like requireUser, but when dev anonymous mode is on a caller without a token acts as the dev user. */
  groupBUser: RequestHandler;
  /** The caller's user id, set by requireUser / groupBUser. */
  userIdOf(res: Response): string;
  /** Test-only fault points of the review (absent in production). */
  faults?: ReviewFaults | undefined;
  /** Erases what the achievements and export counters keep for a user, on user.deleted. */
  eraseUserExtras(userId: string): Promise<void>;
}
