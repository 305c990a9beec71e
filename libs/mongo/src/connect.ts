import { ConnectionString } from 'mongodb-connection-string-url';
import mongoose, { type Connection } from 'mongoose';
import type { Logger } from '@lingua/logger';
import { deadlinePlugin } from './deadline-plugin';
import { watchMonitors } from './monitor-watchdog';

/** A heartbeat in flight this long on a destroyed socket is a wedged monitor (see watchMonitors). */
const MONITOR_STUCK_AFTER_MS = 5_000;
/** How often each pool checks its connections (see connectMongo). */
const POOL_CHECK_MS = 1_000;

export interface MongoHandle {
  connection: Connection;
  /** Readiness: a round trip to the server. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What a connection string points at, safe to log (no credentials, no option values). */
export function describeMongoUrl(url: string): {
  hosts: string[];
  srv: boolean;
  replicaSet: string | undefined;
} {
  const cs = new ConnectionString(url);
  return { hosts: cs.hosts, srv: cs.isSRV, replicaSet: cs.searchParams.get('replicaSet') ?? undefined };
}

/**
 * Production writes are acknowledged by a majority of the replica set, so a failover never rolls
 * back a write the service already acted on (an event published, an answer sent). The connection
 * strings of deploy/ pin `w=majority`; this is the default when a URL does not say. A URL that sets
 * another `w` is used as written (the operator's choice), with a warning.
 */
function productionWriteConcern(url: string, logger: Logger | undefined): { w: 'majority' } | undefined {
  const w = new ConnectionString(url).searchParams.get('w');
  if (w === null) return { w: 'majority' };
  if (w !== 'majority') logger?.warn({ w }, 'MONGO_URL sets a write concern other than w=majority');
  return undefined; // the URL's own
}

/** Each server's last error from a server-selection failure (`host:port` → message). */
function serverErrors(err: unknown): Record<string, string> | undefined {
  const servers = (err as { reason?: { servers?: Map<string, { error?: { message?: string } | null }> } })
    ?.reason?.servers;
  if (!(servers instanceof Map)) return undefined;
  return Object.fromEntries([...servers].map(([host, d]) => [host, d.error?.message ?? 'no answer']));
}

/**
 * One mongoose connection per service, to its own database. `createConnection` rather than the
 * global `mongoose.connect`, so tests can run several services in one process.
 *
 * `serverUrl` is any MongoDB connection string and is passed on unchanged: the database is the
 * driver's `dbName` option. Writing it into the URL's path would also change the default
 * `authSource` (the path names the database the credentials are checked against).
 */
export async function connectMongo(
  serverUrl: string,
  dbName: string,
  options: { serverSelectionTimeoutMS?: number; logger?: Logger; production?: boolean } = {},
): Promise<MongoHandle> {
  options.logger?.info({ mongo: { ...describeMongoUrl(serverUrl), dbName } }, 'connecting to MongoDB');
  const writeConcern = options.production ? productionWriteConcern(serverUrl, options.logger) : undefined;
  // dbName: accepted by the driver's option parser (it is how setClient learns the database) but
  // missing from its option type
  const driverOptions: mongoose.mongo.MongoClientOptions & { dbName: string } = {
    dbName,
    ...(writeConcern && { writeConcern }),
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
    // notice a database that came back within seconds, so readiness recovers quickly
    heartbeatFrequencyMS: 2_000,
    // Poll, do not stream: seen in the chaos suite (bench/chaos.js), a service whose streaming
    // monitor was mid-check when the database server restarted under load never checked again
    // and stayed unable to select the server. A poll is a plain hello bounded by the socket timeout.
    serverMonitoringMode: 'poll',
  };
  const client = new mongoose.mongo.MongoClient(serverUrl, driverOptions);
  // Each pool re-arms a timer every minPoolSizeCheckFrequencyMS (100 ms by default) to top up to
  // minPoolSize and drop perished connections: ten wake-ups a second in an idle process. With
  // minPoolSize 0 there is nothing to top up, so once a second is plenty. The driver accepts the
  // setting only internally (the URL parser rejects it), so it is set on the parsed options before
  // connect() creates the pools from them.
  (client.options as { minPoolSizeCheckFrequencyMS?: number }).minPoolSizeCheckFrequencyMS = POOL_CHECK_MS;
  const connection = mongoose.createConnection();
  // Without this, operations issued while disconnected wait in a queue instead of failing fast.
  connection.config.bufferCommands = false;
  // Never build indexes behind the service's back (mongoose would, in the background, with failures
  // only emitted as events): each service declares its indexes in one list, built and awaited at
  // start by buildIndexes. Off everywhere, so production and tests behave alike.
  connection.config.autoIndex = false;
  // request deadlines reach the database as maxTimeMS (models are declared after this)
  connection.plugin(deadlinePlugin);
  try {
    await client.connect();
  } catch (err) {
    options.logger?.error({ servers: serverErrors(err) }, 'MongoDB unreachable');
    await client.close().catch(() => undefined);
    throw err;
  }
  connection.setClient(client);
  const watchdog = watchMonitors(connection.getClient(), {
    stuckAfterMs: MONITOR_STUCK_AFTER_MS,
    ...(options.logger && { logger: options.logger }),
  });
  return {
    connection,
    // bounded by the caller: HealthRegistry times every check out
    async ping() {
      const db = connection.db;
      if (!db || connection.readyState !== 1) throw new Error('mongo: not connected');
      await db.admin().command({ ping: 1 });
    },
    close: () => (watchdog.stop(), connection.close()),
  };
}
