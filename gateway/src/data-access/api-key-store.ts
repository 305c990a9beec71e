import type { RedisClient } from '@lingua/redis';
import { type ApiKeyRecord, type ApiKeyStore, trustedApiKey } from '../domain/api-keys';

/**
 * Where a key's entries live. The hash tag {apikeys} keeps every entry in one Redis Cluster slot, so
 * the MULTIs that write a record, its hash entry and the index together stay single-slot (keys are
 * few: issued by administrators). `legacy`: the names before the tag (migrateLegacyApiKeys).
 */
function apiKeyNames(prefix: string, legacy = false) {
  const base = legacy ? prefix : `${prefix}:{apikeys}`;
  return {
    recordKey: (id: string) => `${base}:id:${id}`,
    hashKey: (hash: string) => `${base}:hash:${hash}`,
    indexKey: `${base}:ids`,
  };
}

/**
 * API keys in Redis (the gateway owns no database): the record under its key id, the id under the
 * secret's hash for look-ups, and a sorted set of ids by issue time for listing. Revocation keeps
 * the record (audit) and deletes the hash entry, so a revoked secret can never be found again.
 */
export function createApiKeyStore(redis: RedisClient, prefix: string): ApiKeyStore {
  const { recordKey, hashKey, indexKey } = apiKeyNames(prefix);

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

/**
 * Moves the keys written before the hash tag (`<prefix>:id:<id>`, `:hash:<hash>`, `:ids`) under it,
 * once, at the gateway's start: a record already under the new names wins (it may have been
 * revoked since). Single-key reads of the old names, one MULTI per key on the new ones, then the
 * old names deleted; replicas starting together repeat it harmlessly. Returns how many it moved.
 */
export async function migrateLegacyApiKeys(redis: RedisClient, prefix: string): Promise<number> {
  const old = apiKeyNames(prefix, true);
  const now = apiKeyNames(prefix);
  let moved = 0;
  for (const [id, score] of (await redis.zRangeWithScores(old.indexKey, 0, -1)).map(
    (e) => [e.value, e.score] as const,
  )) {
    const raw = await redis.get(old.recordKey(id));
    const stored = raw ? (JSON.parse(raw) as { hash?: string; revoked_at?: string }) : undefined;
    if (stored && !(await redis.exists(now.recordKey(id)))) {
      const m = redis.multi().set(now.recordKey(id), raw!).zAdd(now.indexKey, { score, value: id });
      if (stored.hash && !stored.revoked_at) m.set(now.hashKey(stored.hash), id);
      await m.exec();
      moved++;
    }
    if (stored?.hash) await redis.del(old.hashKey(stored.hash));
    await redis.del(old.recordKey(id));
    await redis.zRem(old.indexKey, id);
  }
  return moved;
}
