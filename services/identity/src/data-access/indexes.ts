import { fileBucketIndexes, type IndexSpec } from '@lingua/mongo';
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
