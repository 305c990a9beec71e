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
 * The seed list without credentials, and the user and password its URLs carry
 * (`nats://identity:secret@a:4222,nats://b:4222`): the one place a service's NATS identity comes
 * from (NATS_URL). The client takes user and password as options, not from URLs, and uses them for
 * every server, gossiped ones included. Two different identities in one list are refused.
 */
export function natsCredentials(servers: string[]): { servers: string[]; user?: string; pass?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const plain = servers.map((server) => {
    const url = new URL(server.includes('://') ? server : `nats://${server}`);
    if (url.username === '' && url.password === '') return server;
    const u = decodeURIComponent(url.username);
    const p = decodeURIComponent(url.password);
    if (user !== undefined && (u !== user || p !== pass))
      throw new Error('NATS_URL: the servers of one seed list carry different credentials');
    user = u;
    pass = p;
    return `${url.protocol}//${url.host}`;
  });
  return { servers: plain, ...(user !== undefined && { user, pass }) };
}

/**
 * Connects and keeps reconnecting forever: a NATS restart must not take a service down. `servers` is
 * one URL, a list, or a comma-separated seed list (`nats://a:4222,nats://b:4222`); the client gets
 * them as its servers array, connects to any one and learns the rest of the cluster from it.
 * Credentials in the URLs (`nats://user:password@host`) are the service's own NATS user.
 */
export async function connectNats(
  servers: string | string[],
  options: { name: string; timeoutMs?: number },
): Promise<NatsHandle> {
  const seeds = natsCredentials((Array.isArray(servers) ? servers : servers.split(',')).map((s) => s.trim()));
  const nc = await connect({
    servers: seeds.servers,
    ...(seeds.user !== undefined && { user: seeds.user, pass: seeds.pass }),
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
