import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createRedisClient>;

function createRedisClient(url: string, name: string | undefined, isReconnect: () => boolean) {
  return createClient({
    url,
    name,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 3_000,
      // The first connection fails fast (a wrong URL should stop the boot); later drops are retried.
      reconnectStrategy: (retries, cause) =>
        isReconnect()
          ? Math.min(100 * 2 ** retries, 5_000)
          : new Error(`redis: cannot connect: ${cause.message}`),
    },
  });
}

export interface RedisHandle {
  client: RedisClient;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * node-redis (the client Redis itself recommends for new code). Commands fail fast while
 * disconnected instead of queueing, so readiness and callers see the outage at once;
 * the client keeps reconnecting with capped back-off in the background.
 */
export async function connectRedis(url: string, options: { name?: string } = {}): Promise<RedisHandle> {
  let connectedOnce = false;
  const client = createRedisClient(url, options.name, () => connectedOnce);
  client.once('ready', () => {
    connectedOnce = true;
  });
  // Without a listener, a connection error would crash the process; reconnects are automatic.
  client.on('error', () => undefined);
  await client.connect();
  return {
    client,
    // bounded by the caller: HealthRegistry times every check out; offline commands fail at once
    async ping() {
      await client.ping();
    },
    async close() {
      if (client.isOpen) await client.close();
    },
  };
}
