import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, uniqueName, waitFor } from '@lingua/testing';
import { connectRedis, countWithin, parseRedisTarget, type RedisHandle } from '../src';

/** Three primaries with cluster mode on, joined by redis-cli (Debian's redis-tools). */
describe('connectRedis with Redis Cluster (three primaries)', () => {
  const nodes: ChildProcess[] = [];
  const ports: number[] = [];
  let dir: string;
  let redis: RedisHandle;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-'));
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      ports.push(port);
      nodes.push(
        spawn(
          'redis-server',
          [
            ...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
            ...['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`)],
            ...['--dir', dir],
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    await waitFor(() => ports.forEach((p) => execFileSync('redis-cli', ['-p', String(p), 'ping'])));
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'],
      {
        stdio: 'ignore',
      },
    );
    // `--cluster create` returns once the slots are assigned; each node says the cluster is up only
    // after the nodes have agreed by gossip (a command before that answers CLUSTERDOWN)
    await waitFor(
      () =>
        ports.forEach((p) =>
          expect(execFileSync('redis-cli', ['-p', String(p), 'cluster', 'info']).toString()).toContain(
            'cluster_state:ok',
          ),
        ),
      { timeoutMs: 20_000 },
    );
    const target = parseRedisTarget({
      REDIS_URL: 'redis://unused',
      REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(','),
    });
    redis = await waitFor(() => connectRedis(target, { name: 'cluster-test' }), { timeoutMs: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await redis?.close().catch(() => undefined);
    for (const n of nodes) n.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('When keys fall on different primaries, Then commands, scripts and MULTI within a hash tag reach the right one', async () => {
    expect(redis.mode).toBe('cluster');
    const keys = Array.from({ length: 20 }, (_, i) => uniqueName(`cluster:${i}`));
    for (const k of keys) await redis.client.set(k, k);
    for (const k of keys) expect(await redis.client.get(k)).toBe(k);
    // the keys fall in more than one hash slot (the slots of three primaries)
    const owners = new Set(
      keys.map((k) =>
        Number(execFileSync('redis-cli', ['-p', String(ports[0]), 'cluster', 'keyslot', k]).toString()),
      ),
    );
    expect(owners.size).toBeGreaterThan(1);
    const counter = uniqueName('cluster:count');
    expect((await countWithin(redis.client, counter, { ttlMs: 60_000, limit: 2 })).count).toBe(1);
    const tag = `{${uniqueName('user')}}`;
    await redis.client.multi().set(`${tag}:a`, '1').set(`${tag}:b`, '2').exec();
    expect(await redis.client.get(`${tag}:b`)).toBe('2');
    await redis.ping();
  });
});
