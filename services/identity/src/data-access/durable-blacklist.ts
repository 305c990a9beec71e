import type { Connection } from 'mongoose';
import { BLACKLIST_INDEX_KEY, type Clock, type TokenBlacklist } from '@lingua/auth';
import type { RedisClient } from '@lingua/redis';

/** Collection of every revocation still in force: the source of truth Redis is rebuilt from. */
export const REVOKED_TOKENS_COLLECTION = 'revoked_tokens';

interface RevokedTokenDocument {
  /** The token's jti, or userRevocation(userId) for every token of a user. */
  _id: string;
  /** Until when the revocation matters (the last token it covers expires); a TTL index forgets it. */
  expiresAt: Date;
}

const BATCH = 500;

export interface DurableBlacklist extends TokenBlacklist {
  /**
   * Writes back to Redis every revocation in force that Redis lost (a failover to a replica that had
   * not received it, a restart without persistence). Returns how many it restored.
   */
  restoreLost(): Promise<number>;
}

/**
 * Revocations kept in the database first and in Redis (the cache every checker reads: the
 * gateway's mirror, services) second, so a Redis failover that drops the last writes loses none for
 * good: restoreLost() puts them back (docs/adr/0022). A revocation the database refused is not
 * reported done; one that reached the database but not Redis is restored by the next pass.
 */
export function durableBlacklist(
  connection: Connection,
  cache: TokenBlacklist,
  redis: RedisClient,
  clock: Clock,
): DurableBlacklist {
  const revoked = () => connection.db!.collection<RevokedTokenDocument>(REVOKED_TOKENS_COLLECTION);
  return {
    async revoke(jti, expiresAtSeconds) {
      const expiresAt = new Date(expiresAtSeconds * 1000);
      // a later expiry wins: revoking again never shortens a revocation
      await revoked().updateOne({ _id: jti }, { $max: { expiresAt } }, { upsert: true });
      await cache.revoke(jti, expiresAtSeconds);
    },
    isRevoked: (jti, sub) => cache.isRevoked(jti, sub),
    async restoreLost() {
      const now = clock.now();
      let restored = 0;
      const cursor = revoked()
        .find({ expiresAt: { $gt: now } })
        .batchSize(BATCH);
      let batch: RevokedTokenDocument[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        // one round trip per batch: a member missing from the index was lost with its key
        const scores = await redis.zmScore(
          BLACKLIST_INDEX_KEY,
          batch.map((d) => d._id),
        );
        const lost = batch.filter((_, i) => scores[i] === null);
        for (const d of lost) await cache.revoke(d._id, Math.ceil(d.expiresAt.getTime() / 1000));
        restored += lost.length;
        batch = [];
      };
      for await (const doc of cursor) {
        batch.push(doc);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      return restored;
    },
  };
}
