import type { RedisClient } from '@lingua/redis';
import { type ApiKeyRecord, type ApiKeyStore, trustedApiKey } from '../domain/api-keys';

/**
 * API keys in Redis (the gateway owns no database): the record under its key id, the id under the
 * secret's hash for look-ups, and a sorted set of ids by issue time for listing. Revocation keeps
 * the record (audit) and deletes the hash entry, so a revoked secret can never be found again.
 */
export function createApiKeyStore(redis: RedisClient, prefix: string): ApiKeyStore {
  const recordKey = (id: string) => `${prefix}:id:${id}`;
  const hashKey = (hash: string) => `${prefix}:hash:${hash}`;
  const indexKey = `${prefix}:ids`;

  const read = async (id: string): Promise<ApiKeyRecord | undefined> => {
    const raw = await redis.get(recordKey(id));
    return raw ? (JSON.parse(raw) as ApiKeyRecord) : undefined;
  };

  return {
    async insert(record: ApiKeyRecord, hash: string): Promise<void> {
      await redis
        .multi()
        .set(recordKey(record.key_id), JSON.stringify({ ...record, hash }))
        .set(hashKey(hash), record.key_id)
        .zAdd(indexKey, { score: Date.parse(record.created_at), value: record.key_id })
        .exec();
    },
    /** For admission: only a record whose every field and scope is understood (else undefined). */
    async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
      const id = await redis.get(hashKey(hash));
      const raw = id ? await redis.get(recordKey(id)) : null;
      if (!raw) return undefined;
      try {
        return trustedApiKey(JSON.parse(raw));
      } catch {
        return undefined; // unreadable: unknown, not an outage
      }
    },
    findById: read,
    /** Newest first. */
    async list(offset: number, limit: number): Promise<{ items: ApiKeyRecord[]; total: number }> {
      const [total, ids] = await Promise.all([
        redis.zCard(indexKey),
        redis.zRange(indexKey, offset, offset + limit - 1, { REV: true }),
      ]);
      const items = (await Promise.all(ids.map(read))).filter((r): r is ApiKeyRecord => r !== undefined);
      return { items, total };
    },
    async revoke(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
      const stored = (await read(id)) as (ApiKeyRecord & { hash?: string }) | undefined;
      if (!stored) return undefined;
      if (stored.revoked_at) return stored;
      const revoked = { ...stored, revoked_at: at.toISOString() };
      const m = redis.multi().set(recordKey(id), JSON.stringify(revoked));
      if (stored.hash) m.del(hashKey(stored.hash));
      await m.exec();
      return revoked;
    },
  };
}
