import {
  type Clock,
  createAccessTokens,
  createAssertionVerifier,
  createTokenBlacklist,
  systemClock,
} from '@lingua/auth';
import { type ServiceDefinition, type ServiceDeps, startService } from '@lingua/bootstrap';
import { createCallSigner } from '@lingua/grpc';
import type { IdentityConfig } from './config';
import { accountErasureRepository } from './data-access/account-erasure.repository';
import { gridFsAvatarStore } from './data-access/avatar.gridfs-store';
import { type DurableBlacklist, durableBlacklist } from './data-access/durable-blacklist';
import { appleTokenClient, appleTokenSettings } from './data-access/apple-tokens.client';
import { grpcCardStats } from './data-access/card-stats.client';
import { deviceRepository } from './data-access/device.repository';
import { joseIdentityProviders } from './data-access/identity-providers';
import { loginAttemptsStore } from './data-access/login-attempts.store';
import { accountMailBudget } from './data-access/account-mail-budget.store';
import { oneTimeTokenCollection, oneTimeTokenRepository } from './data-access/one-time-token.repository';
import { refreshFamilyRepository } from './data-access/refresh-family.repository';
import { socialIdentityRepository } from './data-access/social-identity.repository';
import { userModel } from './data-access/user.model';
import { userRepository } from './data-access/user.repository';
import type { IdentityDeps } from './domain/identity-deps';
import { measuredHasher } from './data-access/measured-hasher';
import { bcryptHasher, type PasswordHasher } from './domain/password-hasher';
import { subscriptionChangedSubscriber } from './entry-points/events/subscription-changed.subscriber';
import { registerIdentityGrpc } from './entry-points/grpc/identity.grpc';
import { registerIdentityHttp } from './entry-points/http';
import { expiredRecordsSweeper } from './entry-points/workers/expired-records.sweeper';
import { pendingErasuresSweeper } from './entry-points/workers/pending-erasures.sweeper';
import { revocationsRestoreWorker } from './entry-points/workers/revocations-restore.worker';
import { identityIndexes, identityShardKeys } from './data-access/indexes';
import { migrateUsernameKeys } from './data-access/username-keys.migration';

export interface IdentityOptions {
  /** Time for every rule (token expiry, lockout, reset links); tests pass a TestClock. */
  clock?: Clock;
}

/** Builds the use-case dependencies from the running service's connections, once. */
function identityDeps(
  deps: ServiceDeps<IdentityConfig>,
  clock: Clock,
  hasher: PasswordHasher,
): IdentityDeps & { blacklist: DurableBlacklist } {
  const { config } = deps;
  const connection = deps.mongo.connection;
  if (!deps.redis) throw new Error('identity needs Redis');
  const f = config.identity;
  const apple = appleTokenSettings(f);
  return {
    config: f,
    clock,
    logger: deps.logger,
    users: userRepository(connection),
    families: refreshFamilyRepository(connection, { historyLimit: f.IDENTITY_REFRESH_HISTORY }),
    oneTimeTokens: oneTimeTokenRepository(connection),
    socialIdentities: socialIdentityRepository(connection),
    attempts: loginAttemptsStore(deps.redis.client),
    mailBudget: accountMailBudget(deps.redis.client),
    accessTokens: createAccessTokens(config.jwtSecret, clock, config.accessTokenParties),
    assertions: createAssertionVerifier('identity', config.assertionKey, { clock }),
    blacklist: durableBlacklist(
      connection,
      createTokenBlacklist(deps.redis.client, clock, { replicas: deps.redis.replicas }),
      deps.redis.client,
      clock,
    ),
    hasher,
    providers: joseIdentityProviders(
      {
        apple: { jwksUrl: f.APPLE_JWKS_URL, issuers: [f.APPLE_ISSUER], audiences: f.APPLE_AUDIENCES },
        google: { jwksUrl: f.GOOGLE_JWKS_URL, issuers: f.GOOGLE_ISSUERS, audiences: f.GOOGLE_AUDIENCES },
      },
      clock,
    ),
    avatars: gridFsAvatarStore(connection),
    devices: deviceRepository(connection),
    erasures: accountErasureRepository(connection),
    cardStats: grpcCardStats(
      f.FLASHCARDS_ADDR,
      f.FLASHCARDS_STATS_DEADLINE_MS,
      // real time, not the rules' clock: the callee checks the assertion against its own
      createCallSigner('identity', config.grpc.grpcSigningKey),
    ),
    apple: apple && appleTokenClient(apple, clock),
    kickOutbox: () => deps.outbox.kick(),
  };
}

/** Wiring of the identity service. */
export function defineIdentityService(
  config: IdentityConfig,
  options: IdentityOptions = {},
): ServiceDefinition<IdentityConfig> {
  const clock = options.clock ?? systemClock;
  const hasher = measuredHasher(bcryptHasher(config.identity.IDENTITY_BCRYPT_COST));
  let built: ReturnType<typeof identityDeps> | undefined;
  const depsOf = (deps: ServiceDeps<IdentityConfig>) => (built ??= identityDeps(deps, clock, hasher));
  return {
    config,
    indexes: () => identityIndexes,
    shardKeys: identityShardKeys,
    migrate: migrateUsernameKeys,
    useRedis: true,
    http: (app, deps) => registerIdentityHttp(app, depsOf(deps), deps.logger),
    grpc: (server, deps) => registerIdentityGrpc(server, depsOf(deps)),
    grpcCallers: config.grpc.grpcCallers,
    consumers: (deps) => [subscriptionChangedSubscriber({ users: depsOf(deps).users })],
    workers: (deps) => [
      expiredRecordsSweeper(depsOf(deps)),
      pendingErasuresSweeper(depsOf(deps), config.identity.IDENTITY_ERASURE_RETRY_MS),
      revocationsRestoreWorker(depsOf(deps), config.identity.IDENTITY_REVOCATION_RESTORE_MS),
      // stopped with the workers: the flashcards channel must not outlive the service
      { stop: async () => depsOf(deps).cardStats.close() },
    ],
    outboxCollections: (deps) => [
      userModel(deps.mongo.connection).collection,
      oneTimeTokenCollection(deps.mongo.connection),
    ],
  };
}

export const start = (config: IdentityConfig, options?: IdentityOptions) =>
  startService(defineIdentityService(config, options));
