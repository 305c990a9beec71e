import type { Connection } from 'mongoose';

/**
 * The tombstones of deleted accounts in a service's own database: the one record of a deleted user
 * a service keeps, so that a late write or a late event (events are not ordered across replicas)
 * cannot recreate what user.deleted erased. Holds the user id and when, nothing else.
 */
export const DELETED_USERS_COLLECTION = 'deleted_users';

export interface DeletedUsers {
  /** Records the tombstone (idempotent); done before the user's data is erased. */
  mark(userId: string, deletedAt: Date): Promise<void>;
  isDeleted(userId: string): Promise<boolean>;
}

export function deletedUsers(connection: Connection): DeletedUsers {
  const tombstones = () =>
    connection.db!.collection<{ _id: string; deletedAt: Date }>(DELETED_USERS_COLLECTION);
  return {
    async mark(userId, deletedAt) {
      await tombstones().updateOne({ _id: userId }, { $setOnInsert: { deletedAt } }, { upsert: true });
    },
    async isDeleted(userId) {
      // a primary-key read (countDocuments would run an aggregation): this is on every event's path
      return (await tombstones().findOne({ _id: userId }, { projection: { _id: 1 } })) !== null;
    },
  };
}
