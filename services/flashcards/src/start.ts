import { reminderScheduler } from './entry-points/workers/reminder-scheduler.worker';
import { reminderScheduleRepository } from './data-access/reminder-schedule.repository';
import { learningProfileModel } from './data-access/learning-profile.model';
import { createAssertionVerifier, mirroredBlacklist, systemClock, type Clock } from '@lingua/auth';
import { type ServiceDefinition, type ServiceDeps, startService } from '@lingua/bootstrap';
import type { FlashcardsConfig } from './config';
import { achievementUnlockModel } from './data-access/achievement.model';
import { achievementRepository } from './data-access/achievement.repository';
import { CARDS_COLLECTION, cardModel } from './data-access/card.model';
import { cardCounters } from './data-access/card-counters.repository';
import { cardReadModels, cardRepository } from './data-access/card-read-models';
import { dueIndexSource } from './data-access/card.repository';
import { createDueIndex } from './data-access/due-index';
import { exportQuota } from './data-access/export-quota.repository';
import { learningProfileRepository } from './data-access/learning-profile.repository';
import { portabilityStore } from './data-access/portability.store';
import { reviewRepository } from './data-access/review.repository';
import { sessionRepository } from './data-access/session.repository';
import { setRepository } from './data-access/set.repository';
import { studyTestRepository } from './data-access/study-test.repository';
import { cardReviewedSubscriber } from './entry-points/events/card-reviewed.subscriber';
import { userDeletedSubscriber } from './entry-points/events/user-deleted.subscriber';
import { registerFlashcardsGrpc } from './entry-points/grpc/flashcards.grpc';
import type { AchievementHook, FlashcardsDeps } from './entry-points/http/deps';
import { identityMiddleware } from './entry-points/http/identity.middleware';
import { registerHttpRoutes } from './entry-points/http';
import { flashcardsIndexes, flashcardsShardKeys } from './data-access/indexes';
import { achievementDepsOver } from './domain/achievements/achievement-store';
import {
  evaluateAchievements,
  evaluateAchievementsInSteps,
} from './domain/achievements/evaluate-achievements.use-case';
import type { ReviewFaults } from './domain/review-card.use-case';

export interface FlashcardsOptions {
  /** Time for due dates, streaks and token expiry (tests pass a TestClock). */
  clock?: Clock;
  /** Achievement evaluation after reviews and sessions (else the achievement rules). */
  achievements?: AchievementHook;
  /** Test-only: where a test stops a review as a crash would (main.ts never passes it). */
  faults?: ReviewFaults;
}

/** Revoked tokens mirrored in memory, one mirror per running service (stopped with its workers). */
const blacklists = new WeakMap<
  ServiceDeps<FlashcardsConfig>,
  ReturnType<typeof mirroredBlacklist> | undefined
>();
function blacklistFor(deps: ServiceDeps<FlashcardsConfig>, clock: Clock) {
  if (!blacklists.has(deps))
    blacklists.set(deps, deps.redis && mirroredBlacklist(deps.redis.client, clock, deps.logger));
  return blacklists.get(deps);
}

/**
 * Builds the routes' dependencies once per running service (the same object reaches routes, gRPC and
 * consumers): every port is wired here, so user.deleted erases the same data whether or not the HTTP
 * routes were registered, and nothing changes the object afterwards.
 */
export function flashcardsDeps(
  deps: ServiceDeps<FlashcardsConfig>,
  clock: Clock,
  achievements?: AchievementHook,
  faults?: ReviewFaults,
): FlashcardsDeps {
  const connection = deps.mongo.connection;
  const assertions = createAssertionVerifier('flashcards', deps.config.assertionKey, { clock });
  const blacklist = blacklistFor(deps, clock);
  const identity = identityMiddleware({
    assertions,
    blacklist,
    devUserId: deps.config.devAnonymousUser ? deps.config.devUserId : undefined,
  });
  const dueIndex =
    deps.redis && deps.config.dueIndex.enabled
      ? createDueIndex({
          client: deps.redis.client,
          source: dueIndexSource(connection),
          logger: deps.logger,
          namespace: connection.db?.databaseName ?? connection.name,
          ttlSeconds: deps.config.dueIndex.ttlSeconds,
          waitMs: deps.config.dueIndex.waitMs,
          checkMs: deps.config.dueIndex.checkMs,
        })
      : undefined;
  const counts = cardCounters(connection, deps.logger, { maxAgeMs: deps.config.cardCountersMaxAgeMs });
  const cards = cardRepository(connection, dueIndex, counts);
  const sets = setRepository(connection);
  const reviews = reviewRepository(connection);
  const profiles = learningProfileRepository(connection);
  const achievementStore = achievementRepository(connection);
  const quota = deps.redis ? exportQuota(deps.redis.client) : undefined;
  const achievementDeps = achievementDepsOver({
    store: achievementStore,
    profiles,
    reviews,
    now: () => clock.now(),
    kickOutbox: () => deps.outbox.kick(),
  });
  return {
    config: deps.config,
    logger: deps.logger,
    clock,
    outbox: {
      cardStaged: (id, userId) =>
        deps.outbox.kick({ collection: CARDS_COLLECTION, id, shardKey: { userId } }),
      any: () => deps.outbox.kick(),
    },
    cards,
    readModels: cardReadModels(counts, dueIndex),
    cardCounts: counts,
    sets,
    reviews,
    sessions: sessionRepository(connection),
    studyTests: studyTestRepository(connection),
    profiles,
    portability: portabilityStore(connection, { cards, cardCounts: counts, sets, logger: deps.logger }),
    exportQuota: quota,
    achievementDeps,
    // an explicitly given hook (tests) wins over the achievement rules
    achievements: achievements ?? {
      onActivity: (userId, known) => evaluateAchievements(userId, achievementDeps, known),
      inSteps: (userId) =>
        evaluateAchievementsInSteps(userId, achievementDeps, (err) =>
          deps.logger.warn({ err, userId }, 'achievement evaluation failed'),
        ),
    },
    faults,
    async eraseUserExtras(userId) {
      await achievementStore.deleteAllOfUser(userId);
      await quota?.eraseUser(userId);
    },
    ...identity,
  };
}

/** Wiring of the flashcards service. */
export function defineFlashcardsService(
  config: FlashcardsConfig,
  options: FlashcardsOptions = {},
): ServiceDefinition<FlashcardsConfig> {
  const clock = options.clock ?? systemClock;
  const built = new WeakMap<ServiceDeps<FlashcardsConfig>, FlashcardsDeps>();
  const depsOf = (deps: ServiceDeps<FlashcardsConfig>) => {
    let d = built.get(deps);
    if (!d) built.set(deps, (d = flashcardsDeps(deps, clock, options.achievements, options.faults)));
    return d;
  };
  return {
    config,
    indexes: () => flashcardsIndexes,
    shardKeys: flashcardsShardKeys,
    useRedis: true,
    accessLogSampleRate: config.accessLogSampleRate,
    http: (app, deps) => registerHttpRoutes(app, depsOf(deps)),
    grpc: (server, deps) =>
      registerFlashcardsGrpc(server, {
        counts: depsOf(deps).cardCounts,
        // the due read model first (a Redis range count), the due-date index when it cannot answer
        due: { countDue: (userId, at) => depsOf(deps).cards.countDue(userId, at) },
        profiles: depsOf(deps).profiles,
        now: () => clock.now(),
      }),
    grpcCallers: config.grpc.grpcCallers,
    consumers: (deps) => [userDeletedSubscriber(depsOf(deps)), cardReviewedSubscriber(depsOf(deps))],
    workers: (deps) => {
      const blacklist = blacklistFor(deps, clock);
      const d = depsOf(deps);
      const reminders = config.reminders.enabled
        ? reminderScheduler(
            {
              schedule: reminderScheduleRepository(deps.mongo.connection, (hint) => deps.outbox.kick(hint)),
              reviews: d.reviews,
              countDue: (userId, at) => d.cards.countDue(userId, at),
              now: () => clock.now(),
              logger: deps.logger,
            },
            { intervalMs: config.reminders.pollMs, batch: 1_000, concurrency: config.reminders.concurrency },
          )
        : undefined;
      return [...(blacklist ? [blacklist] : []), ...(reminders ? [reminders] : [])];
    },
    outboxCollections: (deps) => [
      cardModel(deps.mongo.connection).collection,
      // achievement.unlocked events are staged in the unlock documents (part 2)
      achievementUnlockModel(deps.mongo.connection).collection,
      // reminder.triggered events are staged in the learning profiles (ADR 0028)
      learningProfileModel(deps.mongo.connection).collection,
    ],
  };
}

export const start = (config: FlashcardsConfig, options?: FlashcardsOptions) =>
  startService(defineFlashcardsService(config, options));
