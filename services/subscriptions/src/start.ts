import { periodicTask, type ServiceDefinition, type ServiceDeps, startService } from '@lingua/bootstrap';
import { authenticate, createAssertionVerifier, createTokenBlacklist } from '@lingua/auth';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import type { SubscriptionsConfig } from './config';
import { loadCatalogue } from './data-access/catalogue.file';
import { entitlementVersions } from './data-access/entitlement-versions.repository';
import { NOTIFICATION_RETENTION_MS, notificationLog } from './data-access/notification-log.repository';
import { appleVerifier, readRootCertificates } from './data-access/stores/apple.verifier';
import { appStoreServerApi, readPrivateKey } from './data-access/stores/app-store-server-api';
import { googlePushAuth } from './data-access/stores/google-push-auth';
import { googleVerifier, readServiceAccount } from './data-access/stores/google.verifier';
import { measuredVerifier } from './data-access/stores/measured-verifier';
import { sandboxVerifier } from './data-access/stores/sandbox.verifier';
import { subscriptionRepository, subscriptionsCollection } from './data-access/subscription.repository';
import { redisUsageCounters } from './data-access/usage.repository';
import type { Catalogue } from './domain/catalogue';
import { expireSubscriptions } from './domain/expire-subscriptions.use-case';
import { reconcileRecentEntitlements, userEntitlements } from './domain/user-entitlement';
import type { Clock, SubscriptionsContext } from './domain/ports';
import { userDeletedSubscriber } from './entry-points/events/user-deleted.subscriber';
import { registerEntitlementsGrpc } from './entry-points/grpc/entitlements.grpc';
import { adminRoutes } from './entry-points/http/admin.routes';
import { dialoguesRoutes } from './entry-points/http/dialogues.routes';
import { storeNotificationRoutes } from './entry-points/http/store-notifications.routes';
import { subscriptionsRoutes } from './entry-points/http/subscriptions.routes';
import { subscriptionsIndexes, subscriptionsShardKeys } from './data-access/indexes';

export interface SubscriptionsOptions {
  /** Tests move time; production uses the system clock. */
  clock?: Clock;
  /** Tests give the plans/offers directly instead of a file. */
  catalogue?: Catalogue;
}

const systemClock: Clock = { now: () => new Date() };
/** Users whose subscriptions changed this recently are checked by every sweep (a writer that died mid-way). */
const RECONCILE_WINDOW_MS = 10 * 60_000;

function buildStores(
  config: SubscriptionsConfig,
  catalogue: Catalogue,
  clock: Clock,
  deps: ServiceDeps<SubscriptionsConfig>,
) {
  const s = config.subscriptions;
  const sandbox = sandboxVerifier({ catalogue, clock });
  const apple =
    s.iosVerifier === 'apple'
      ? appleVerifier({
          rootCertificates: readRootCertificates(s.APPLE_ROOT_CERTS),
          bundleId: s.APPLE_BUNDLE_ID,
          appAppleId: s.APPLE_APP_APPLE_ID,
          api: s.APPLE_IAP_PRIVATE_KEY_FILE
            ? appStoreServerApi({
                issuerId: s.APPLE_IAP_ISSUER_ID!,
                keyId: s.APPLE_IAP_KEY_ID!,
                privateKey: readPrivateKey(s.APPLE_IAP_PRIVATE_KEY_FILE),
                bundleId: s.APPLE_BUNDLE_ID,
                environment: s.appleApiEnvironment,
                baseUrl: s.APPLE_IAP_API_URL,
                timeoutMs: s.STORE_TIMEOUT_MS,
                logger: deps.logger,
              })
            : undefined,
        })
      : undefined;
  const google =
    s.androidVerifier === 'google'
      ? googleVerifier({
          packageName: s.GOOGLE_PLAY_PACKAGE_NAME,
          apiUrl: s.GOOGLE_PLAY_API_URL,
          serviceAccount: readServiceAccount(s.GOOGLE_SERVICE_ACCOUNT_KEY_FILE!),
          timeoutMs: s.STORE_TIMEOUT_MS,
          logger: deps.logger,
        })
      : undefined;
  return { sandbox, apple, google };
}

/** Wiring of the subscriptions service. */
export function defineSubscriptionsService(
  config: SubscriptionsConfig,
  options: SubscriptionsOptions = {},
): ServiceDefinition<SubscriptionsConfig> {
  const clock = options.clock ?? systemClock;
  const catalogue = options.catalogue ?? loadCatalogue(config.subscriptions.SUBSCRIPTIONS_CATALOGUE_FILE);
  let ctx: SubscriptionsContext | undefined;
  let reconcile: (userId: string) => Promise<void> = async () => undefined;

  // Built once, by whichever hook bootstrap calls first (they all receive the same deps).
  const contextFor = (deps: ServiceDeps<SubscriptionsConfig>): SubscriptionsContext => {
    if (ctx) return ctx;
    const stores = buildStores(config, catalogue, clock, deps);
    const entitlements = userEntitlements(subscriptionRepository(deps.mongo.connection), {
      versions: entitlementVersions(deps.mongo.connection),
      clock,
    });
    reconcile = entitlements.reconcile;
    ctx = {
      subscriptions: entitlements.store,
      catalogue,
      verifiers: {
        ios: stores.apple
          ? { name: 'apple', verifier: measuredVerifier('apple', stores.apple) }
          : { name: 'sandbox', verifier: measuredVerifier('sandbox', stores.sandbox) },
        android: stores.google
          ? { name: 'google', verifier: measuredVerifier('google', stores.google) }
          : { name: 'sandbox', verifier: measuredVerifier('sandbox', stores.sandbox) },
      },
      usage: redisUsageCounters(deps.redis!.client),
      clock,
      eventsStaged: () => deps.outbox.kick(),
      settings: {
        gracePeriodDays: config.subscriptions.SUBSCRIPTIONS_GRACE_PERIOD_DAYS,
        freeDialoguesPerDay: config.subscriptions.FREE_DIALOGUES_PER_DAY,
        sandboxPurchases: config.subscriptions.sandboxPurchases,
      },
    };
    Object.assign(ctx, { stores });
    return ctx;
  };
  const storesOf = (c: SubscriptionsContext) =>
    (c as SubscriptionsContext & { stores: ReturnType<typeof buildStores> }).stores;

  return {
    config,
    indexes: () => subscriptionsIndexes,
    shardKeys: subscriptionsShardKeys,
    useRedis: true,
    outboxCollections: (deps) => [subscriptionsCollection(deps.mongo.connection) as never],
    http: (app, deps) => {
      const c = contextFor(deps);
      const assertions = createAssertionVerifier('subscriptions', config.assertionKey, { clock });
      const blacklist = createTokenBlacklist(deps.redis!.client, clock);
      const auth = {
        optional: authenticate({ assertions, blacklist, optional: true }),
        required: authenticate({ assertions, blacklist }),
      };
      const docs = createApiDocs('subscriptions');
      const s = config.subscriptions;
      const stores = storesOf(c);
      app.use(subscriptionsRoutes(c, auth, docs));
      app.use(
        storeNotificationRoutes(
          c,
          {
            journal: notificationLog(deps.mongo.connection, {
              leaseMs: s.STORE_NOTIFICATION_LEASE_MS,
              retentionMs: NOTIFICATION_RETENTION_MS,
            }),
            apple: stores.apple,
            google: stores.google,
            packageName: s.GOOGLE_PLAY_PACKAGE_NAME,
            googlePush: googlePushAuth({
              sharedSecret: s.GOOGLE_RTDN_SHARED_SECRET,
              audience: s.GOOGLE_RTDN_AUDIENCE,
              serviceAccountEmail: s.GOOGLE_RTDN_SERVICE_ACCOUNT_EMAIL,
              certsUrl: s.GOOGLE_RTDN_CERTS_URL,
              timeoutMs: s.STORE_TIMEOUT_MS,
            }),
          },
          docs,
        ),
      );
      app.use(dialoguesRoutes(c, auth, docs));
      app.use(adminRoutes(c, auth, docs));
      serveApiDocs(app, docs);
    },
    grpc: (server, deps) =>
      registerEntitlementsGrpc(server, {
        subscriptions: contextFor(deps).subscriptions,
        now: () => clock.now(),
      }),
    grpcCallers: config.grpc.grpcCallers,
    // no user.created consumer: a new account naming a device proves nothing about its guest purchase
    consumers: (deps) => [
      userDeletedSubscriber({
        ...contextFor(deps),
        entitlementVersions: entitlementVersions(deps.mongo.connection),
      }),
    ],
    // safe on every replica: each subscription is expired by a version-checked write, exactly once;
    // the reconciliation re-announces a user's entitlement only when the last announced one is wrong
    workers: (deps) => [
      periodicTask(
        'subscriptions expiry sweep',
        config.subscriptions.SUBSCRIPTIONS_SWEEP_INTERVAL_MS,
        async () => {
          const c = contextFor(deps);
          await expireSubscriptions(c);
          await reconcileRecentEntitlements(
            { subscriptions: c.subscriptions, reconcile, clock, eventsStaged: c.eventsStaged },
            RECONCILE_WINDOW_MS,
          );
        },
        deps.logger,
      ),
    ],
  };
}

export const start = (config: SubscriptionsConfig, options?: SubscriptionsOptions) =>
  startService(defineSubscriptionsService(config, options));
