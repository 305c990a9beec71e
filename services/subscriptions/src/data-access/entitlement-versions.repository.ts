import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { EntitlementVersions } from '../domain/ports';

export const ENTITLEMENT_VERSIONS_COLLECTION = 'user_entitlement_versions';

interface VersionDoc {
  _id: string;
  version: number;
}

/** One counter per user (domain/user-entitlement.ts): increased atomically, never decreased. */
export function entitlementVersions(connection: Connection): EntitlementVersions {
  const col = connection.collection<VersionDoc>(ENTITLEMENT_VERSIONS_COLLECTION);
  return {
    async next(userId) {
      // two first increments racing: one upsert inserts, the other gets the duplicate key and increments
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await col.findOneAndUpdate(
            { _id: userId },
            { $inc: { version: 1 } },
            { upsert: true, returnDocument: 'after' },
          );
          return doc!.version;
        } catch (err) {
          if (!isDuplicateKeyError(err) || attempt >= 2) throw err;
        }
      }
    },
    async current(userId) {
      return (await col.findOne({ _id: userId }))?.version ?? 0;
    },
    async forget(userId) {
      await col.deleteOne({ _id: userId });
    },
  };
}
