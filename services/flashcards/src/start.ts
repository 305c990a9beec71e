import { createAssertionVerifier, mirroredBlacklist, systemClock, type Clock } from '@lingua/auth';
import { type ServiceDefinition, type ServiceDeps, startService } from '@lingua/bootstrap';
import type { FlashcardsConfig } from './config';
import { achievementUnlockModel } from './data-access/achievement.model';
import { cardModel } from './data-access/card.model';
import { cardCounters } from './data-access/card-counters.repository';
import { cardRepository, dueIndexSource } from './data-access/card.repository';
import { createDueIndex } from './data-access/due-index';
import { learningProfileRepository } from './data-access/learning-profile.repository';
import { reviewRepository } from './data-access/review.repository';
import { sessionRepository } from './data-access/session.repository';
import { setRepository } from './data-access/set.repository';
import { studyTestRepository } from './data-access/study-test.repository';
import { userDeletedSubscriber } from './entry-points/events/user-deleted.subscriber';
import { registerFlashcardsGrpc } from './entry-points/grpc/flashcards.grpc';
import type { AchievementHook, FlashcardsDeps } from './entry-points/http/deps';
import { identityMiddleware } from './entry-points/http/identity.middleware';
import { registerHttpRoutes } from './entry-points/http';
import { flashcardsIndexes } from './data-access/indexes';

export interface FlashcardsOptions {
  /** Time for due dates, streaks and token expiry (tests pass a TestClock). */
  clock?: Clock;
  /** Achievement evaluation after reviews and sessions (else whatever the achievements routes install). */
  achievements?: AchievementHook;
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

/** Builds the routes' dependencies once per running service (the same object reaches routes, gRPC and consumers). */
export function flashcardsDeps(
  deps: ServiceDeps<FlashcardsConfig>,
  clock: Clock,
  achievements?: AchievementHook,
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
        })
      : undefined;
  const counts = cardCounters(connection, deps.logger);
  return {
    config: deps.config,
    logger: deps.logger,
    clock,
    connection,
    redis: deps.redis,
    publisher: deps.publisher,
    outbox: deps.outbox,
    cards: cardRepository(connection, dueIndex, counts),
    cardCounts: counts,
    sets: setRepository(connection),
    reviews: reviewRepository(connection),
    sessions: sessionRepository(connection),
    studyTests: studyTestRepository(connection),
    profiles: learningProfileRepository(connection),
    ...identity,
    ...(achievements && { achievements }),
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
    if (!d) built.set(deps, (d = flashcardsDeps(deps, clock, options.achievements)));
    return d;
  };
  return {
    config,
    indexes: () => flashcardsIndexes,
    useRedis: true,
    accessLogSampleRate: config.accessLogSampleRate,
    http: (app, deps) => {
      const d = depsOf(deps);
      registerHttpRoutes(app, d);
      // an explicitly given hook wins over the one the achievements routes install
      if (options.achievements) d.achievements = options.achievements;
    },
    grpc: (server, deps) =>
      registerFlashcardsGrpc(server, {
        counts: depsOf(deps).cardCounts,
        // the due read model first (a Redis range count), the due-date index when it cannot answer
        due: { countDue: (userId, at) => depsOf(deps).cards.countDue(userId, at) },
        now: () => clock.now(),
      }),
    consumers: (deps) => [userDeletedSubscriber(depsOf(deps))],
    workers: (deps) => {
      const blacklist = blacklistFor(deps, clock);
      return blacklist ? [blacklist] : [];
    },
    outboxCollections: (deps) => [
      cardModel(deps.mongo.connection).collection,
      // achievement.unlocked events are staged in the unlock documents (part 2)
      achievementUnlockModel(deps.mongo.connection).collection,
    ],
  };
}

export const start = (config: FlashcardsConfig, options?: FlashcardsOptions) =>
  startService(defineFlashcardsService(config, options));
