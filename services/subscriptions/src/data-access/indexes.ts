import type { IndexSpec } from '@lingua/mongo';
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
