/** host:port of a Redis node or a Sentinel. */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

/**
 * Where the Redis data lives, in one of the three shapes node-redis has a client for:
 * - `single`: one server (REDIS_URL), as in development and tests;
 * - `sentinel`: a primary with replicas watched by Sentinels, which the client asks for the current
 *   primary and follows through a failover (createSentinel);
 * - `cluster`: Redis Cluster, keys spread over primaries by hash slot (createCluster).
 * In the last two, REDIS_URL still gives the data nodes' user and password (its host is unused).
 */
export type RedisTarget =
  | { mode: 'single'; url: string; replicas: number }
  | {
      mode: 'sentinel';
      masterName: string;
      sentinels: RedisNodeAddress[];
      username?: string;
      password?: string;
      sentinelUsername?: string;
      sentinelPassword?: string;
      /** Replicas that must hold a write before a durable write answers (execDurably). */
      replicas: number;
    }
  | { mode: 'cluster'; nodes: RedisNodeAddress[]; username?: string; password?: string; replicas: number };

/** The environment variables that choose the target (docs/operations/configuration.md, "Redis"). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_SENTINELS?: string | undefined;
  REDIS_SENTINEL_MASTER?: string | undefined;
  REDIS_SENTINEL_USERNAME?: string | undefined;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES?: string | undefined;
  REDIS_WAIT_REPLICAS?: string | undefined;
}

/** Names of the variables above, for config schemas that list what they read. */
export const REDIS_ENV_NAMES = [
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_MASTER',
  'REDIS_SENTINEL_USERNAME',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_CLUSTER_NODES',
  'REDIS_WAIT_REPLICAS',
] as const;

export class RedisConfigError extends Error {
  constructor(
    readonly variable: (typeof REDIS_ENV_NAMES)[number],
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

function addresses(variable: 'REDIS_SENTINELS' | 'REDIS_CLUSTER_NODES', value: string): RedisNodeAddress[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const m = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(item);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) throw new RedisConfigError(variable, `"${item}" is not host:port`);
      return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
    });
  if (list.length === 0) throw new RedisConfigError(variable, 'lists no host:port');
  return list;
}

function credentials(url: string): { username?: string; password?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RedisConfigError('REDIS_URL', 'is not a URL');
  }
  return {
    ...(u.username && { username: decodeURIComponent(u.username) }),
    ...(u.password && { password: decodeURIComponent(u.password) }),
  };
}

/**
 * The target the variables describe: Sentinel when REDIS_SENTINELS is set, Cluster when
 * REDIS_CLUSTER_NODES is, else the single server at REDIS_URL. Throws RedisConfigError naming the
 * variable at fault, for the config loader to report at boot.
 */
export function parseRedisTarget(env: RedisEnv): RedisTarget {
  const sentinels = env.REDIS_SENTINELS?.trim();
  const clusterNodes = env.REDIS_CLUSTER_NODES?.trim();
  if (sentinels && clusterNodes)
    throw new RedisConfigError('REDIS_CLUSTER_NODES', 'set together with REDIS_SENTINELS: choose one');
  let replicas: number | undefined;
  if (env.REDIS_WAIT_REPLICAS !== undefined && env.REDIS_WAIT_REPLICAS !== '') {
    replicas = Number(env.REDIS_WAIT_REPLICAS);
    if (!Number.isInteger(replicas) || replicas < 0 || replicas > 16)
      throw new RedisConfigError('REDIS_WAIT_REPLICAS', 'must be an integer from 0 to 16');
  }
  if (sentinels) {
    const masterName = env.REDIS_SENTINEL_MASTER?.trim();
    if (!masterName) throw new RedisConfigError('REDIS_SENTINEL_MASTER', 'required with REDIS_SENTINELS');
    return {
      mode: 'sentinel',
      masterName,
      sentinels: addresses('REDIS_SENTINELS', sentinels),
      ...credentials(env.REDIS_URL),
      ...(env.REDIS_SENTINEL_USERNAME && { sentinelUsername: env.REDIS_SENTINEL_USERNAME }),
      ...(env.REDIS_SENTINEL_PASSWORD && { sentinelPassword: env.REDIS_SENTINEL_PASSWORD }),
      // a primary with replicas: a durable write waits for one of them unless told otherwise
      replicas: replicas ?? 1,
    };
  }
  if (clusterNodes)
    return {
      mode: 'cluster',
      nodes: addresses('REDIS_CLUSTER_NODES', clusterNodes),
      ...credentials(env.REDIS_URL),
      replicas: replicas ?? 1,
    };
  credentials(env.REDIS_URL); // checks it is a URL
  return { mode: 'single', url: env.REDIS_URL, replicas: replicas ?? 0 };
}

/** The target without its secrets, for logs. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.mode === 'sentinel')
    return `sentinel ${target.masterName} via ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  if (target.mode === 'cluster')
    return `cluster via ${target.nodes.map((s) => `${s.host}:${s.port}`).join(',')}`;
  const u = new URL(target.url);
  return `single ${u.host}`;
}
