import { jetstream, type JetStreamClient, type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

export interface NatsHandle {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Readiness: a round trip to the server. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects and keeps reconnecting forever: a NATS restart must not take a service down. `servers` is
 * one URL, a list, or a comma-separated seed list (`nats://a:4222,nats://b:4222`); the client gets
 * them as its servers array, connects to any one and learns the rest of the cluster from it.
 */
export async function connectNats(
  servers: string | string[],
  options: { name: string; timeoutMs?: number },
): Promise<NatsHandle> {
  const nc = await connect({
    servers: (Array.isArray(servers) ? servers : servers.split(',')).map((s) => s.trim()),
    name: options.name,
    timeout: options.timeoutMs ?? 5_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  const jsm = await jetstreamManager(nc, { timeout: options.timeoutMs ?? 5_000 });
  return {
    nc,
    js: jetstream(nc, { timeout: options.timeoutMs ?? 5_000 }),
    jsm,
    async ping() {
      if (nc.isClosed()) throw new Error('nats: connection closed');
      await nc.rtt();
    },
    async close() {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
