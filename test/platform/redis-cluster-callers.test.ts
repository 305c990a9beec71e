import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BLACKLIST_INDEX_KEY,
  BLACKLIST_KEY_PREFIX,
  createBlacklistMirror,
  createTokenBlacklist,
  userRevocation,
} from '@lingua/auth';
import { connectRedis, parseRedisTarget, type RedisHandle } from '@lingua/redis';
import { freePort, uniqueName, waitFor } from '@lingua/testing';
import { createApiKeyStore, migrateLegacyApiKeys } from '../../gateway/src/data-access/api-key-store';
import type { ApiKeyRecord } from '../../gateway/src/domain/api-keys';
import { createRateLimiters } from '../../gateway/src/middleware/rate-limit';
import { quotaStore } from '../../services/ai/src/data-access/quota.store';
import { userUsageEraser } from '../../services/ai/src/data-access/user-usage.eraser';
import { exportQuota } from '../../services/flashcards/src/data-access/export-quota.repository';
import { loginAttemptsStore } from '../../services/identity/src/data-access/login-attempts.store';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startRedisCluster } = require('../../deploy/local/redis-ha') as {
  startRedisCluster(o: {
    dir: string;
    ports: number[];
  }): Promise<{ ports: number[]; stop(): Promise<void>; keySlot(key: string): number }>;
};

/**
 * The callers' own Redis code against a Redis Cluster of three primaries (ADR 0031): each MULTI,
 * script and multi-key command within one hash slot, and the erasers' SCAN on every primary.
 */
describe('the callers of Redis against Redis Cluster (three primaries)', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let redis: RedisHandle;

  beforeAll(async () => {
    cluster = await startRedisCluster({
      dir: fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-callers-')),
      ports: [await freePort(), await freePort(), await freePort()],
    });
    const target = parseRedisTarget({
      REDIS_URL: 'redis://unused',
      REDIS_CLUSTER_NODES: cluster.ports.map((p) => `127.0.0.1:${p}`).join(','),
    });
    redis = await waitFor(() => connectRedis(target, { name: 'cluster-callers-test' }), {
      timeoutMs: 20_000,
    });
  }, 60_000);

  afterAll(async () => {
    await redis?.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('When tokens are revoked, Then the MULTI, the two-key check and the mirror work across the cluster', async () => {
    const blacklist = createTokenBlacklist(redis.client);
    const mirror = await createBlacklistMirror(redis.client);
    try {
      const jti = uniqueName('jti');
      const user = uniqueName('user');
      const in1h = Math.floor(Date.now() / 1000) + 3600;
      await blacklist.revoke(jti, in1h);
      await blacklist.revoke(userRevocation(user), in1h);
      expect(await blacklist.isRevoked(jti)).toBe(true);
      expect(await blacklist.isRevoked(uniqueName('other'), user)).toBe(true);
      expect(await blacklist.isRevoked(uniqueName('other'), uniqueName('user'))).toBe(false);
      await waitFor(() => expect(mirror.revokedNow(jti)).toBe(true));
      // one slot for the whole blacklist: the index and every entry
      expect(cluster.keySlot(BLACKLIST_KEY_PREFIX + jti)).toBe(cluster.keySlot(BLACKLIST_INDEX_KEY));
      // a replica required that these primaries do not have: the WAIT goes after the revocation's
      // MULTI to the slot's primary, and the revocation is not reported durable
      const durable = createTokenBlacklist(redis.client, undefined, { replicas: 1 });
      await expect(durable.revoke(uniqueName('jti'), in1h)).rejects.toMatchObject({
        name: 'ReplicasUnavailableError',
        message: expect.stringMatching(/reached 0 of 1 replicas/),
      });
    } finally {
      await mirror.stop();
      await redis.client.del(BLACKLIST_INDEX_KEY);
    }
  });

  it('When API keys are issued, found, listed, revoked and moved from the old names, Then each step works across the cluster', async () => {
    const prefix = uniqueName('gateway:apikey');
    const store = createApiKeyStore(redis.client, prefix);
    const record = (id: string): ApiKeyRecord => ({
      key_id: id,
      client_id: 'client',
      name: id,
      scopes: ['*'],
      created_at: new Date().toISOString(),
      created_by: 'admin',
      expires_at: null,
      revoked_at: null,
    });
    await store.insert(record('k1'), 'hash-1');
    expect((await store.findByHash('hash-1'))?.key_id).toBe('k1');
    await store.revoke('k1', new Date());
    expect(await store.findByHash('hash-1')).toBeUndefined();

    // a key written under the names before the hash tag (a running deployment) is moved at start
    const legacy = { ...record('k0'), hash: 'hash-0' };
    await redis.client.set(`${prefix}:id:k0`, JSON.stringify(legacy));
    await redis.client.set(`${prefix}:hash:hash-0`, 'k0');
    await redis.client.zAdd(`${prefix}:ids`, { score: 1, value: 'k0' });
    expect(await migrateLegacyApiKeys(redis.client, prefix)).toBe(1);
    expect(await migrateLegacyApiKeys(redis.client, prefix)).toBe(0);
    expect((await store.findByHash('hash-0'))?.key_id).toBe('k0');
    expect((await store.list(0, 10)).items.map((r) => r.key_id)).toEqual(['k1', 'k0']);
    expect(await redis.client.exists([`${prefix}:id:k0`])).toBe(0);

    for (const key of ['id:k0', 'id:k1', 'hash:hash-0', 'ids'])
      await redis.client.del(`${prefix}:{apikeys}:${key}`);
  });

  it('When rate limits, lockouts and quotas count, Then their scripts and counters work across the cluster', async () => {
    const rlPrefix = uniqueName('gateway:rl');
    const limiters = createRateLimiters(
      redis.client,
      {
        sharedFree: 3,
        sharedSubscriber: 3,
        apiKey: 3,
        catalogueFree: 3,
        cataloguePremium: 3,
        loginPerMinute: 3,
        signupPerHour: 3,
        recoveryPerHour: 3,
        storePerMinute: 3,
      },
      rlPrefix,
    );
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await limiters.consume('shared-free', 'user-1')).exceeded);
    expect(decisions).toEqual([false, false, false, true]);
    limiters.release();

    const attempts = loginAttemptsStore(redis.client);
    const email = `${uniqueName('lock')}@example.com`;
    const now = Date.now();
    for (let i = 0; i < 3; i++) await attempts.reserve(email, now, 3, 60_000);
    expect((await attempts.reserve(email, now + 1, 3, 60_000)).granted).toBe(false);
    await attempts.reset(email);
    expect(await attempts.countIpAttempt(uniqueName('ip'), now, 60_000)).toBe(1);

    // the AI's quotas and windows, then its eraser, which must find them on every primary
    const quotas = quotaStore(redis.client);
    const users = Array.from({ length: 12 }, () => uniqueName('ai-user'));
    for (const u of users) {
      expect((await quotas.reserveDaily('translate', u, '2026-11-28', 5)).allowed).toBe(true);
      const w = await quotas.takeWindow('lookup', u, { nowMs: now, windowMs: 60_000, limit: 5, useId: 'a' });
      expect(w.allowed).toBe(true);
    }
    const slots = new Set(users.map((u) => cluster.keySlot(`ai:window:lookup:${u}`)));
    expect(slots.size).toBeGreaterThan(1);
    const eraser = userUsageEraser(redis.client);
    for (const u of users) expect(await eraser.deleteAllOfUser(u)).toBe(2);
    for (const u of users) expect(await quotas.usedDaily('translate', u, '2026-11-28')).toBe(0);

    // flashcards' export quota: days of one user fall on several primaries, all erased
    const exports = exportQuota(redis.client);
    const user = uniqueName('fc-user');
    const days = Array.from({ length: 8 }, (_, i) => `2026-11-${String(10 + i)}`);
    for (const d of days) await exports.reserve(user, d, 5, 3600);
    await exports.eraseUser(user);
    for (const d of days) expect(await exports.used(user, d)).toBe(0);
  });
});
