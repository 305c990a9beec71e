import { createClient, createCluster, createSentinel } from 'redis';
import { type RedisTarget, parseRedisTarget } from './target';

export type RedisClient = ReturnType<typeof createRedisClient>;

const CONNECT_TIMEOUT_MS = 3_000;

function createRedisClient(url: string, name: string | undefined, isReconnect: () => boolean) {
  return createClient({
    url,
    name,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // The first connection fails fast (a wrong URL should stop the boot); later drops are retried.
      reconnectStrategy: (retries, cause) =>
        isReconnect()
          ? Math.min(100 * 2 ** retries, 5_000)
          : new Error(`redis: cannot connect: ${cause.message}`),
    },
  });
}

/** Cluster clients, which route WAIT by key (waitForReplicas). */
const clusterClients = new WeakSet<object>();

/**
 * The client for a primary watched by Sentinels. node-redis asks the Sentinels for the primary,
 * follows a failover by itself (a command sent meanwhile waits for the new primary, then runs) and
 * moves its subscriptions along, emitting 'reconnecting' then 'ready' as a plain client does after
 * a reconnect. Its commands, MULTI, duplicate() and pub/sub are the plain client's, so callers keep
 * the one RedisClient type (the integration test runs the callers' commands through it).
 */
function createSentinelClient(target: Extract<RedisTarget, { mode: 'sentinel' }>, name: string | undefined) {
  const sentinel = createSentinel({
    name: target.masterName,
    sentinelRootNodes: target.sentinels,
    nodeClientOptions: {
      ...(target.username && { username: target.username }),
      ...(target.password && { password: target.password }),
      ...(name && { name }),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: CONNECT_TIMEOUT_MS,
        reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000),
      },
    },
    sentinelClientOptions: {
      ...(target.sentinelUsername && { username: target.sentinelUsername }),
      ...(target.sentinelPassword && { password: target.sentinelPassword }),
      socket: { connectTimeout: CONNECT_TIMEOUT_MS },
    },
    // every command on the primary (read-your-writes; replicas are for failover, not reads)
    masterPoolSize: 1,
    replicaPoolSize: 0,
    // a command waits through a failover (about 3-5 s; the callers' deadlines bound it), and through
    // one failed attempt: Sentinel tries again after twice failover-timeout (10 s), which ten rounds
    // did not outlast (seen: a durable write failed with "no valid master node" under the suite's
    // load); a booting process gives up after these rounds, one a second (untilAvailable retries the boot)
    maxCommandRediscovers: 16,
    // besides the Sentinels' announcements: a missed one is noticed within this
    scanInterval: 2_000,
  });
  return sentinel as unknown as RedisClient;
}

function createClusterClient(target: Extract<RedisTarget, { mode: 'cluster' }>, name: string | undefined) {
  const cluster = createCluster({
    rootNodes: target.nodes.map((n) => ({ socket: { host: n.host, port: n.port } })),
    defaults: {
      ...(target.username && { username: target.username }),
      ...(target.password && { password: target.password }),
      ...(name && { name }),
      disableOfflineQueue: true,
      socket: { connectTimeout: CONNECT_TIMEOUT_MS },
    },
  });
  clusterClients.add(cluster);
  // Commands by key, MULTI and scripts within one hash slot: callers keep keys that go together
  // under one hash tag ({...}), as the due index and the blacklist do (docs/adr, Redis HA).
  return cluster as unknown as RedisClient;
}

export interface RedisHandle {
  client: RedisClient;
  /** Which shape of Redis this is (single, sentinel, cluster). */
  mode: RedisTarget['mode'];
  /** Replicas a durable write waits for (REDIS_WAIT_REPLICAS; pass to execDurably). */
  replicas: number;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * node-redis (the client Redis itself recommends for new code). Commands fail fast while
 * disconnected instead of queueing, so readiness and callers see the outage at once;
 * the client keeps reconnecting with capped back-off in the background. With Sentinel, a command
 * sent during a failover waits for the new primary (bounded by the callers' deadlines).
 * `target`: a URL (one server) or what parseRedisTarget read from the environment.
 */
export async function connectRedis(
  target: string | RedisTarget,
  options: { name?: string } = {},
): Promise<RedisHandle> {
  const t = typeof target === 'string' ? parseRedisTarget({ REDIS_URL: target }) : target;
  let connectedOnce = false;
  const client =
    t.mode === 'sentinel'
      ? createSentinelClient(t, options.name)
      : t.mode === 'cluster'
        ? createClusterClient(t, options.name)
        : createRedisClient(t.url, options.name, () => connectedOnce);
  client.once('ready', () => {
    connectedOnce = true;
  });
  // Without a listener, a connection error would crash the process; reconnects are automatic.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    if (client.isOpen) await client.destroy();
    throw err;
  }
  return {
    client,
    mode: t.mode,
    replicas: t.replicas,
    // bounded by the caller: HealthRegistry times every check out; offline commands fail at once
    async ping() {
      await client.ping();
    },
    async close() {
      if (client.isOpen) await client.close();
    },
  };
}

/** Fewer replicas than required acknowledged a write (a dependency outage: HTTP maps it to 503). */
export class ReplicasUnavailableError extends Error {
  override name = 'ReplicasUnavailableError';
}

function requireAcks(acked: number, replicas: number, timeoutMs: number) {
  // fails closed: a reply that is not a count is no acknowledgement
  if (!(acked >= replicas))
    throw new ReplicasUnavailableError(
      `redis: the write reached ${acked} of ${replicas} replicas within ${timeoutMs} ms`,
    );
}

/** A batch of commands built with client.multi(), for execDurably. */
export type RedisBatch = ReturnType<RedisClient['multi']>;

/**
 * Runs a batch of writes and reports it done only once `replicas` replicas hold it, so a failover
 * to one of them cannot lose it; throws ReplicasUnavailableError when fewer did within `timeoutMs`,
 * and the caller must not report the write done. With no replica required, the batch runs as a
 * MULTI. `key`: one of the batch's keys (Cluster asks its slot's primary).
 *
 * The writes and the WAIT go as one pipeline on one connection, so the WAIT counts the replicas
 * that hold these writes. Sent apart, a failover between them (the primary killed after it took
 * the writes, before any replica received them) sends the WAIT alone to the new primary, where it
 * counts replicas holding nothing of this connection and reports the lost writes durable. In one
 * pipeline the Sentinel client sends the whole batch again to the new primary. The batch's writes
 * are not atomic then, so they must be idempotent; each still runs once per attempt, in order.
 *
 * The Cluster client runs the batch as a MULTI, then the WAIT on the primary of `key`'s slot: its
 * pipelines do not follow MOVED/ASK redirections (a reshard would fail the write), and it does not
 * resend a command whose connection dropped: a WAIT whose primary died fails (503) rather than
 * reaching another primary.
 */
export async function execDurably(
  client: RedisClient,
  batch: RedisBatch,
  replicas: number,
  options: { timeoutMs?: number; key?: string } = {},
): Promise<void> {
  if (replicas <= 0 || clusterClients.has(client)) {
    await batch.exec();
    await waitForReplicas(client, replicas, options);
    return;
  }
  const timeoutMs = options.timeoutMs ?? 1_000;
  const replies = await batch.wait(replicas, timeoutMs).execAsPipeline();
  requireAcks(Number(replies[replies.length - 1]), replicas, timeoutMs);
}

/**
 * How many replicas hold every write this client sent before (Redis WAIT), failing when fewer than
 * `replicas` within `timeoutMs`: a probe that replicas are attached and in sync. A durable write
 * uses execDurably instead (a WAIT sent apart from its writes may run on another primary). With
 * Cluster, `key` picks the primary that is asked.
 */
export async function waitForReplicas(
  client: RedisClient,
  replicas: number,
  options: { timeoutMs?: number; key?: string } = {},
): Promise<void> {
  if (replicas <= 0) return;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const acked = clusterClients.has(client)
    ? Number(
        await (
          client as unknown as {
            sendCommand(k: string | undefined, ro: boolean, a: string[]): Promise<unknown>;
          }
        ).sendCommand(options.key, false, ['WAIT', String(replicas), String(timeoutMs)]),
      )
    : await client.wait(replicas, timeoutMs);
  requireAcks(acked, replicas, timeoutMs);
}

/**
 * Deletes every key matching `match` on every primary and returns how many went. A Cluster
 * client's own SCAN sees only one node, so in Cluster mode each master is scanned through its node
 * client; the keys of one batch may fall in different hash slots, so each is deleted on its own (a
 * multi-key DEL across slots is refused). For rare clean-ups (a user's erasure), not hot paths.
 */
export async function deleteMatching(client: RedisClient, match: string, count = 1000): Promise<number> {
  const cluster = clusterClients.has(client)
    ? (client as unknown as { masters: unknown[]; nodeClient(node: unknown): Promise<RedisClient> })
    : undefined;
  const nodes = cluster ? await Promise.all(cluster.masters.map((m) => cluster.nodeClient(m))) : [client];
  let deleted = 0;
  for (const node of nodes)
    for await (const keys of node.scanIterator({ MATCH: match, COUNT: count }))
      for (const key of keys) deleted += await client.del(key);
  return deleted;
}
