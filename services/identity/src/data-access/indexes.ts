import { PROCESSED_EVENTS_COLLECTION } from '@lingua/events';
import {
  fileBucketIndexes,
  type IndexSpec,
  platformShardDeclarations,
  type ShardDeclaration,
} from '@lingua/mongo';
import { AVATAR_BUCKET } from './avatar.gridfs-store';

/**
 * Every index of the identity database, in one place: built and awaited at start (startService);
 * one that cannot be built keeps the service not-ready and is named in the log.
 */
export const identityIndexes: IndexSpec[] = [
  // sign-in and the EMAIL_EXISTS conflict (e-mails are stored lower-cased)
  { collection: 'users', key: { email: 1 }, unique: true },
  // the USERNAME_EXISTS conflict (exact spelling)
  { collection: 'users', key: { username: 1 }, unique: true },
  // the case-insensitive USERNAME_EXISTS conflict ("Anna" and "anna" are one name), race-free: the
  // local database has no collation indexes, so the lower-cased copy is unique (migrateUsernameKeys)
  { collection: 'users', key: { usernameKey: 1 }, unique: true },
  // the outbox relay's only query, on both collections whose documents carry staged events
  { collection: 'users', key: { _outboxPending: 1 } },
  { collection: 'one_time_tokens', key: { _outboxPending: 1 } },
  // "log out of all devices" and revocation on password reset / account deletion
  { collection: 'refresh_families', key: { userId: 1 } },
  // logout ends the sign-in behind the access token it presents (one entry per issued token)
  { collection: 'refresh_families', key: { 'accessTokens.jti': 1 } },
  // unlinking every provider of a deleted user
  { collection: 'social_identities', key: { userId: 1 } },
  // invalidating a user's outstanding reset tokens once one was used
  { collection: 'one_time_tokens', key: { userId: 1, kind: 1 } },
  // revocations in force, walked by the restore worker; forgotten once the tokens they cover expired
  { collection: 'revoked_tokens', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
  // the pending-erasures sweep: deletion records not tried for a while, oldest first
  { collection: 'account_erasures', key: { triedAt: 1 } },
  // push devices: one token, one device (registering it again finds it; another account takes it over)
  { collection: 'devices', key: { tokenKey: 1 }, unique: true },
  // a user's devices, least recently seen last (listing, the 20-device cap, erasure)
  { collection: 'devices', key: { userId: 1, lastSeenAt: -1 } },
  // the avatars (GridFS)
  ...fileBucketIndexes(AVATAR_BUCKET),
  // a deleted account's avatars, found by owner
  { collection: `${AVATAR_BUCKET}.files`, key: { 'metadata.owner': 1 } },
];

/** How each collection of the identity database is sharded, or why it is not (ADR 0030). */
export const identityShardKeys: ShardDeclaration[] = [
  {
    collection: 'users',
    unsharded:
      'e-mail, username and usernameKey are unique across all accounts (sign-in and sign-up look them up), which only an unsharded collection or a shard key on each of them can enforce; one small document per account (10 M accounts ≈ 10 GB) fits one shard',
  },
  {
    collection: 'refresh_families',
    key: { _id: 'hashed' },
    why: 'the hot path is the refresh (every app start and hourly), which finds and rotates the sign-in by the id its refresh token carries; the sign-ins of one user spread over shards',
  },
  {
    collection: 'social_identities',
    unsharded:
      'one document per linked provider account (at most two per user), read by provider subject at sign-in and by user only at deletion: small, and no key serves both',
  },
  {
    collection: 'one_time_tokens',
    unsharded: 'reset and verification tokens, short-lived and few (one per e-mail sent)',
  },
  {
    collection: 'revoked_tokens',
    unsharded:
      'revocations in force (expire within the access-token lifetime), walked whole by the blacklist restore: small, and every read is a scan',
  },
  {
    collection: 'account_erasures',
    unsharded: 'deletions in progress: a handful at any time, walked by the retry sweep',
  },
  {
    collection: 'devices',
    unsharded:
      'a push token is unique across accounts (registering it from another account moves it), which a key on userId cannot enforce; reads are by user (reminders) and by token (registration); about two small documents per user',
  },
  {
    collection: `${AVATAR_BUCKET}.files`,
    unsharded: "GridFS file metadata, one per avatar; MongoDB's advice: leave the files collection unsharded",
  },
  {
    collection: `${AVATAR_BUCKET}.chunks`,
    key: { files_id: 1, n: 1 },
    why: 'GridFS bytes: the standard chunks key, which its unique { files_id, n } index already has; every read and write names files_id',
  },
  ...platformShardDeclarations(PROCESSED_EVENTS_COLLECTION),
];
