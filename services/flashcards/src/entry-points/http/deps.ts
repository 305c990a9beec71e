import type { RequestHandler, Response } from 'express';
import type { Connection } from 'mongoose';
import type { Clock } from '@lingua/auth';
import type { EventPublisher, OutboxRelay } from '@lingua/events';
import type { Logger } from '@lingua/logger';
import type { ApiDocs } from '@lingua/openapi';
import type { RedisHandle } from '@lingua/redis';
import type { FlashcardsConfig } from '../../config';
import type { CardCounters } from '../../data-access/card-counters.repository';
import type { CardRepository } from '../../data-access/card.repository';
import type { LearningProfileRepository } from '../../data-access/learning-profile.repository';
import type { ReviewRepository } from '../../data-access/review.repository';
import type { SessionRepository } from '../../data-access/session.repository';
import type { SetRepository } from '../../data-access/set.repository';
import type { StudyTestRepository } from '../../data-access/study-test.repository';

import type { AchievementHook } from '../../domain/achievement-hook';

export type { AchievementHook };

/**
 * What the flashcards routes, consumers and hooks get. One object per running service: the
 * achievements/export module (part 2) may set `achievements` and `eraseUserExtras` on it from its
 * `registerAchievementRoutes` / `registerExportImportRoutes`, which run before the consumers start.
 */
export interface FlashcardsDeps {
  config: FlashcardsConfig;
  logger: Logger;
  clock: Clock;
  connection: Connection;
  redis: RedisHandle | undefined;
  publisher: EventPublisher;
  /** kick() after a write that staged events. */
  outbox: OutboxRelay;
  cards: CardRepository;
  /** The per-user card counters the card repository keeps (read by GetCardStats, erased with the user). */
  cardCounts: CardCounters;
  sets: SetRepository;
  reviews: ReviewRepository;
  sessions: SessionRepository;
  studyTests: StudyTestRepository;
  profiles: LearningProfileRepository;
  /** Group C: a valid, non-revoked bearer token is required (401 otherwise). */
  requireUser: RequestHandler;
  /** Group B: like requireUser, but when dev anonymous mode is on a caller without a token acts as the dev user. */
  groupBUser: RequestHandler;
  /** The caller's user id, set by requireUser / groupBUser. */
  userIdOf(res: Response): string;
  achievements?: AchievementHook;
  /** The service's OpenAPI fragment: every router registers its routes here (served at /internal/openapi.json). */
  docs?: ApiDocs;
  /** Erases what part 2 keeps for a user (achievements, export counters) on user.deleted. */
  eraseUserExtras?: (userId: string) => Promise<void>;
}
