import { PROCESSED_EVENTS_COLLECTION } from '@lingua/events';
import { type IndexSpec, platformShardDeclarations, type ShardDeclaration } from '@lingua/mongo';
import { STORE_NOTIFICATIONS_COLLECTION } from './notification-log.repository';
import { SUBSCRIPTIONS_COLLECTION } from './subscription.repository';

/**
 * Every index of the subscriptions database, in one place: built and awaited at start
 * (startService); one that cannot be built keeps the service not-ready and is named in the log.
 */
export const subscriptionsIndexes: IndexSpec[] = [
  // one purchase (store + original transaction) is one subscription, whoever sends it and how often
  { collection: SUBSCRIPTIONS_COLLECTION, key: { storeKey: 1 }, unique: true, name: 'storeKey_unique' },
  // the owner's current subscription and history
  { collection: SUBSCRIPTIONS_COLLECTION, key: { userId: 1, expiresAt: -1 }, name: 'user_expiry' },
  { collection: SUBSCRIPTIONS_COLLECTION, key: { deviceId: 1, expiresAt: -1 }, name: 'device_expiry' },
  // the expiry sweep
  { collection: SUBSCRIPTIONS_COLLECTION, key: { status: 1, expiresAt: 1 }, name: 'status_expiry' },
  // store notification ids are forgotten once no store retries them any more (expireAt is set per row)
  {
    collection: STORE_NOTIFICATIONS_COLLECTION,
    key: { expireAt: 1 },
    name: 'store_notifications_expiry',
    expireAfterSeconds: 0,
  },
  // the entitlement reconciliation: users whose subscriptions changed lately
  { collection: SUBSCRIPTIONS_COLLECTION, key: { updatedAt: -1 }, name: 'updated_at' },
  // the outbox relay's query
  { collection: SUBSCRIPTIONS_COLLECTION, key: { _outboxPending: 1 }, name: 'outbox_pending' },
];

/** How each collection of the subscriptions database is sharded, or why it is not (ADR 0030). */
export const subscriptionsShardKeys: ShardDeclaration[] = [
  {
    collection: SUBSCRIPTIONS_COLLECTION,
    unsharded:
      'one store purchase is one subscription whoever sends it (storeKey is unique across users and guests, which a key on userId cannot enforce), and guests own theirs by device; only paying users have one (a few per cent)',
  },
  {
    collection: STORE_NOTIFICATIONS_COLLECTION,
    unsharded: "the stores' notification ids, kept only while a store may retry them (TTL)",
  },
  {
    collection: 'user_entitlement_versions',
    key: { _id: 'hashed' },
    why: 'one per user whose entitlements changed, _id is the user id, read and written by it',
  },
  ...platformShardDeclarations(PROCESSED_EVENTS_COLLECTION),
];
