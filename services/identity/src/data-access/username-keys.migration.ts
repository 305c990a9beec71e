import type { Logger } from '@lingua/logger';
import type { mongo } from 'mongoose';

interface UserKeys {
  _id: string;
  username: string;
  usernameKey?: string | null;
  createdAt?: Date;
}

const INDEX = 'usernameKey_1';
const NAMESPACE_NOT_FOUND = 26;

/**
 * Makes `usernameKey` (the lower-cased username) fit its unique index, at start before the indexes
 * are built; done once (the unique index then exists), idempotent if two replicas run it together.
 * 1. Users written before the key existed get it.
 * 2. Names that already differ only in case (registered while the key was not unique) keep their
 *    spelling; the oldest account keeps the key, each later one gets `<key>#<id>` (a username never
 *    contains `#`), so every case variant stays taken and no visible name changes.
 * 3. The non-unique index of the same key, which the unique one replaces, is dropped.
 */
export async function migrateUsernameKeys(db: mongo.Db, logger: Logger): Promise<void> {
  const users = db.collection<UserKeys>('users');
  const indexes = await users.indexes().catch((err: { code?: number }) => {
    if (err.code === NAMESPACE_NOT_FOUND) return [];
    throw err;
  });
  const existing = indexes.find((i) => i.name === INDEX);
  if (existing?.unique) return;

  const missing = { $or: [{ usernameKey: { $exists: false } }, { usernameKey: null }] };
  let backfilled = 0;
  for await (const user of users.find(missing, { projection: { username: 1 } })) {
    await users.updateOne(
      { _id: user._id, ...missing },
      { $set: { usernameKey: user.username.toLowerCase() } },
    );
    backfilled++;
  }

  let rekeyed = 0;
  const shared = await users
    .aggregate<{ _id: string; n: number }>([
      { $group: { _id: '$usernameKey', n: { $sum: 1 } } },
      { $match: { n: { $gt: 1 } } },
    ])
    .toArray();
  for (const { _id: key } of shared) {
    const holders = await users
      .find({ usernameKey: key }, { projection: { _id: 1 } })
      .sort({ createdAt: 1, _id: 1 })
      .toArray();
    for (const later of holders.slice(1)) {
      await users.updateOne(
        { _id: later._id, usernameKey: key },
        { $set: { usernameKey: `${key}#${later._id}` } },
      );
      rekeyed++;
    }
  }

  if (existing) await users.dropIndex(INDEX);
  if (backfilled > 0 || rekeyed > 0 || existing)
    logger.warn(
      { backfilled, rekeyed, droppedIndex: Boolean(existing) },
      'usernames: lower-cased keys backfilled for the case-insensitive unique index',
    );
}
