// GENERATED from the shard declarations in services/*/src/data-access/indexes.ts: do not edit.
// Regenerate: SHARD_SCRIPT_WRITE=1 npx jest test/platform/shard-keys.test.ts (ADR 0030).
//
// Run against a mongos, once, before the services start (or later: a collection that already
// has data is sharded on the index made here). Idempotent: sharded collections are skipped.
//   mongosh "mongodb://<admin>@<mongos>/admin" deploy/mongo/shard-collections.js
// Database names follow the services' settings: IDENTITY_MONGO_DB=... in the environment.
//
// Left unsharded, on their database primary shard:
//   lingua_identity.users: e-mail, username and usernameKey are unique across all accounts (sign-in and sign-up look them up), which only an unsharded collection or a shard key on each of them can enforce; one small document per account (10 M accounts ≈ 10 GB) fits one shard
//   lingua_identity.social_identities: one document per linked provider account (at most two per user), read by provider subject at sign-in and by user only at deletion: small, and no key serves both
//   lingua_identity.one_time_tokens: reset and verification tokens, short-lived and few (one per e-mail sent)
//   lingua_identity.revoked_tokens: revocations in force (expire within the access-token lifetime), walked whole by the blacklist restore: small, and every read is a scan
//   lingua_identity.account_erasures: deletions in progress: a handful at any time, walked by the retry sweep
//   lingua_identity.devices: a push token is unique across accounts (registering it from another account moves it), which a key on userId cannot enforce; reads are by user (reminders) and by token (registration); about two small documents per user
//   lingua_identity.avatars.files: GridFS file metadata, one per avatar; MongoDB's advice: leave the files collection unsharded
//   lingua_identity.deleted_users: one small tombstone per deleted account, read by _id when an event or a request names the user
//   lingua_flashcards.deleted_users: one small tombstone per deleted account, read by _id when an event or a request names the user
//   lingua_subscriptions.subscriptions: one store purchase is one subscription whoever sends it (storeKey is unique across users and guests, which a key on userId cannot enforce), and guests own theirs by device; only paying users have one (a few per cent)
//   lingua_subscriptions.store_notifications: the stores' notification ids, kept only while a store may retry them (TTL)
//   lingua_subscriptions.deleted_users: one small tombstone per deleted account, read by _id when an event or a request names the user
//   lingua_ai.images.files: GridFS file metadata, one per image; MongoDB's advice: leave the files collection unsharded
//   lingua_ai.deleted_users: one small tombstone per deleted account, read by _id when an event or a request names the user
//   lingua_notifications.webhook_endpoints: owned by the few accounts that register webhooks (partners, admins), not by every learner
//   lingua_notifications.webhook_deliveries: the webhook endpoints' deliveries, kept WEBHOOK_DELIVERY_RETENTION_DAYS; read by the delivery worker across endpoints
//   lingua_notifications.webhook_attempts: a delivery's attempts, kept as long as the delivery
//   lingua_notifications.deleted_users: one small tombstone per deleted account, read by _id when an event or a request names the user

/* global db, sh, print -- mongosh */
const env = (name, fallback) => (typeof process !== 'undefined' && process.env[name]) || fallback;
const identity = env('IDENTITY_MONGO_DB', 'lingua_identity');
const flashcards = env('FLASHCARDS_MONGO_DB', 'lingua_flashcards');
const subscriptions = env('SUBSCRIPTIONS_MONGO_DB', 'lingua_subscriptions');
const ai = env('AI_MONGO_DB', 'lingua_ai');
const notifications = env('NOTIFICATIONS_MONGO_DB', 'lingua_notifications');

const collections = [
  [identity, 'refresh_families', { _id: 'hashed' }],
  [identity, 'avatars.chunks', { files_id: 1, n: 1 }],
  [identity, 'processed_events', { _id: 'hashed' }],
  [flashcards, 'cards', { userId: 1, _id: 1 }],
  [flashcards, 'reviews', { userId: 1, _id: 1 }],
  [flashcards, 'study_tests', { userId: 1, studyDate: 1 }],
  [flashcards, 'card_sets', { userId: 'hashed' }],
  [flashcards, 'learning_sessions', { userId: 'hashed' }],
  [flashcards, 'achievement_unlocks', { userId: 'hashed' }],
  [flashcards, 'achievement_claims', { userId: 'hashed' }],
  [flashcards, 'learning_profiles', { _id: 'hashed' }],
  [flashcards, 'card_counters', { _id: 'hashed' }],
  [flashcards, 'processed_events', { _id: 'hashed' }],
  [subscriptions, 'user_entitlement_versions', { _id: 'hashed' }],
  [subscriptions, 'processed_events', { _id: 'hashed' }],
  [ai, 'images', { userId: 'hashed' }],
  [ai, 'images.chunks', { files_id: 1, n: 1 }],
  [ai, 'processed_events', { _id: 'hashed' }],
  [notifications, 'notifications', { userId: 'hashed' }],
  [notifications, 'reminder_sends', { userId: 'hashed' }],
  [notifications, 'processed_events', { _id: 'hashed' }],
];

for (const [name, collection, key] of collections) {
  const ns = `${name}.${collection}`;
  if (db.getSiblingDB('config').collections.findOne({ _id: ns, unsplittable: { $ne: true } })?.key) {
    print(`${ns}: already sharded`);
    continue;
  }
  sh.enableSharding(name);
  // a non-empty collection can be sharded only on an existing index of its key
  db.getSiblingDB(name).getCollection(collection).createIndex(key);
  sh.shardCollection(ns, key);
  print(`${ns}: sharded on ${JSON.stringify(key)}`);
}
