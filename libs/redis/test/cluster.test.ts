import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, uniqueName, waitFor } from '@lingua/testing';
import { connectRedis, countWithin, parseRedisTarget, type RedisHandle } from '../src';

// the same cluster the callers' test (test/platform/redis-cluster-callers.test.ts) runs against
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startRedisCluster } = require('../../../deploy/local/redis-ha') as {
  startRedisCluster(o: {
    dir: string;
    ports: number[];
  }): Promise<{ ports: number[]; stop(): Promise<void>; keySlot(key: string): number }>;
};

/** Three primaries with cluster mode on, joined by redis-cli (Debian's redis-tools). */
describe('connectRedis with Redis Cluster (three primaries)', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let redis: RedisHandle;

  beforeAll(async () => {
    cluster = await startRedisCluster({
      dir: fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-')),
      ports: [await freePort(), await freePort(), await freePort()],
    });
    const ports = cluster.ports;
    const target = parseRedisTarget({
      REDIS_URL: 'redis://unused',
      REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(','),
    });
    redis = await waitFor(() => connectRedis(target, { name: 'cluster-test' }), { timeoutMs: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await redis?.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('When keys fall on different primaries, Then commands, scripts and MULTI within a hash tag reach the right one', async () => {
    expect(redis.mode).toBe('cluster');
    const keys = Array.from({ length: 20 }, (_, i) => uniqueName(`cluster:${i}`));
    for (const k of keys) await redis.client.set(k, k);
    for (const k of keys) expect(await redis.client.get(k)).toBe(k);
    // the keys fall in more than one hash slot (the slots of three primaries)
    const owners = new Set(keys.map((k) => cluster.keySlot(k)));
    expect(owners.size).toBeGreaterThan(1);
    const counter = uniqueName('cluster:count');
    expect((await countWithin(redis.client, counter, { ttlMs: 60_000, limit: 2 })).count).toBe(1);
    const tag = `{${uniqueName('user')}}`;
    await redis.client.multi().set(`${tag}:a`, '1').set(`${tag}:b`, '2').exec();
    expect(await redis.client.get(`${tag}:b`)).toBe('2');
    await redis.ping();
  });
});
