import type { NewUser, UserRepository } from '../domain/ports';
import type { Connection } from 'mongoose';
import type { AnyDomainEvent } from '@lingua/contracts';
import { stageEvents } from '@lingua/events';
import { isDuplicateKeyError, mapDuplicateKeyError } from '@lingua/mongo';
import {
  DEFAULT_SETTINGS,
  type Role,
  type SubscriptionStatus,
  type User,
  type UserProfile,
  type UserSettings,
} from '../domain/user';
import { userModel, type UserDocument } from './user.model';

const toUser = (d: UserDocument): User => ({
  id: d._id,
  email: d.email,
  username: d.username,
  role: d.role ?? 'user',
  subscriptionStatus: d.subscriptionStatus ?? 'inactive',
  emailVerified: d.emailVerified ?? false,
  authProvider: d.authProvider ?? 'password',
  hasPassword: Boolean(d.passwordHash),
  profile: {
    displayName: d.profile?.displayName ?? null,
    bio: d.profile?.bio ?? null,
    avatarUrl: d.profile?.avatarUrl ?? null,
    preferredLanguage: d.profile?.preferredLanguage ?? null,
    nativeLanguage: d.profile?.nativeLanguage ?? null,
    timezone: d.profile?.timezone ?? null,
  },
  settings: { ...DEFAULT_SETTINGS, ...d.settings },
  lastLoginAt: d.lastLoginAt ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const live = { deletedAt: null };
const USERNAME_DUPLICATES = { username: 'USERNAME_EXISTS', usernameKey: 'USERNAME_EXISTS' } as const;

/**
 * Plain objects out, never mongoose documents; deleted accounts are invisible. Every write is one
 * atomic single-document update (libs/mongo/README.md, "Database guarantees we rely on"): the outbox
 * relay's `$pull` of a published event and a concurrent change to the same user never undo each other.
 */
export function userRepository(connection: Connection): UserRepository {
  const Users = userModel(connection);

  /** One write that applies the change and returns the user as it now is (no read-back, no window). */
  async function setAndRead(id: string, $set: Record<string, unknown>): Promise<User | undefined> {
    const doc = await Users.findOneAndUpdate(
      { _id: id, ...live },
      { $set },
      { returnDocument: 'after' },
    ).lean<UserDocument>();
    return doc ? toUser(doc) : undefined;
  }
  return {
    async findById(id: string): Promise<User | undefined> {
      const doc = await Users.findOne({ _id: id, ...live }).lean<UserDocument>();
      return doc ? toUser(doc) : undefined;
    },
    async findByEmail(email: string): Promise<User | undefined> {
      const doc = await Users.findOne({ email: email.toLowerCase(), ...live }).lean<UserDocument>();
      return doc ? toUser(doc) : undefined;
    },
    /** The only read that returns the password hash: for verifying a password, nothing else. */
    async findCredentials(by: { email: string } | { id: string }) {
      const filter = 'email' in by ? { email: by.email.toLowerCase() } : { _id: by.id };
      const doc = await Users.findOne({ ...filter, ...live })
        .select('+passwordHash')
        .lean<UserDocument>();
      return doc ? { user: toUser(doc), passwordHash: doc.passwordHash ?? null } : undefined;
    },
    async emailTaken(email: string): Promise<boolean> {
      return (await Users.exists({ email: email.toLowerCase() })) !== null;
    },
    async usernameTaken(username: string, exceptUserId?: string): Promise<boolean> {
      const found = await Users.findOne({
        $or: [{ usernameKey: username.toLowerCase() }, { username }],
      })
        .select('_id')
        .lean<{ _id: string }>();
      return found !== null && found._id !== exceptUserId;
    },
    /** Inserts the user and its events in one single-document write (outbox). */
    async create(user: NewUser, events: AnyDomainEvent[]): Promise<User> {
      try {
        const doc = await Users.create({
          _id: user.id,
          email: user.email.toLowerCase(),
          username: user.username,
          usernameKey: user.username.toLowerCase(),
          passwordHash: user.passwordHash,
          emailVerified: user.emailVerified,
          authProvider: user.authProvider,
          profile: user.profile,
          settings: {},
          lastLoginAt: user.lastLoginAt,
          ...(events.length > 0 ? stageEvents(...events).fields : {}),
        });
        return toUser(doc.toObject() as UserDocument);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // the local database does not say which unique index refused the insert: ask which value is taken
        const emailTaken = (await Users.exists({ email: user.email.toLowerCase() })) !== null;
        return mapDuplicateKeyError(
          err,
          emailTaken ? { email: 'EMAIL_EXISTS' } : USERNAME_DUPLICATES,
          emailTaken ? 'E-mail already registered' : 'Username already taken',
        );
      }
    },
    async recordLogin(id: string, at: Date): Promise<void> {
      await Users.updateOne({ _id: id }, { $set: { lastLoginAt: at } });
    },
    /**
     * Applies a subscription change unless a newer one was applied already. Admins stay admins. Each
     * write is conditional on the change being newer than the last one applied, so two events racing
     * (or redelivered) can never let the older one win. Newer means a higher user entitlement
     * version (subscriptions' per-user counter), whatever the timestamps say; an event without one
     * (an older publisher) is compared by timestamp, and only while no versioned one was applied.
     */
    async applySubscription(
      id: string,
      change: { role: Role; subscriptionStatus: SubscriptionStatus; at: Date; version?: number | undefined },
    ): Promise<boolean> {
      const unversioned = {
        $or: [{ subscriptionVersion: null }, { subscriptionVersion: { $exists: false } }],
      };
      const newer =
        change.version === undefined
          ? {
              $and: [
                unversioned,
                { $or: [{ subscriptionSyncedAt: null }, { subscriptionSyncedAt: { $lt: change.at } }] },
              ],
            }
          : { $or: [...unversioned.$or, { subscriptionVersion: { $lt: change.version } }] };
      const status = {
        subscriptionStatus: change.subscriptionStatus,
        subscriptionSyncedAt: change.at,
        ...(change.version !== undefined && { subscriptionVersion: change.version }),
      };
      const applied = await Users.updateOne(
        { _id: id, role: { $ne: 'admin' }, ...newer },
        { $set: { ...status, role: change.role } },
      );
      if (applied.matchedCount === 1) return true;
      const admin = await Users.updateOne({ _id: id, role: 'admin', ...newer }, { $set: status });
      return admin.matchedCount === 1;
    },
    async setPassword(id: string, passwordHash: string): Promise<void> {
      await setAndRead(id, { passwordHash });
    },
    async markEmailVerified(id: string): Promise<User | undefined> {
      return setAndRead(id, { emailVerified: true });
    },
    async updateProfile(
      id: string,
      change: { username?: string; profile: Partial<UserProfile> },
    ): Promise<User | undefined> {
      const $set: Record<string, unknown> = {};
      if (change.username !== undefined) {
        $set.username = change.username;
        $set.usernameKey = change.username.toLowerCase();
      }
      for (const [key, value] of Object.entries(change.profile))
        if (value !== undefined) $set[`profile.${key}`] = value;
      try {
        return await setAndRead(id, $set);
      } catch (err) {
        return mapDuplicateKeyError(err, USERNAME_DUPLICATES, 'Username already taken');
      }
    },
    async updateSettings(id: string, settings: Partial<UserSettings>): Promise<User | undefined> {
      const $set: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(settings))
        if (value !== undefined) $set[`settings.${key}`] = value;
      return setAndRead(id, $set);
    },
    /**
     * Deletes an account: personal data is erased and e-mail/username freed in the same write that
     * stages user.deleted, so the event cannot be lost; the emptied document is kept as its carrier.
     */
    async softDelete(id: string, at: Date, event: AnyDomainEvent, reason?: string): Promise<boolean> {
      const staged = stageEvents(event).update;
      const result = await Users.updateOne(
        { _id: id, ...live },
        {
          ...staged,
          $set: {
            ...staged.$set,
            deletedAt: at,
            deletionReason: reason ?? null,
            email: `deleted+${id}@invalid.lingua`,
            username: `deleted_${id}`,
            usernameKey: `deleted_${id}`,
            passwordHash: null,
            profile: {},
            settings: {},
          },
        },
      );
      return result.modifiedCount === 1;
    },
  };
}
export type { NewUser, UserRepository };
