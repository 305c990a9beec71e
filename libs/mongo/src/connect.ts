import mongoose, { type Connection } from 'mongoose';
import { deadlinePlugin } from './deadline-plugin';

export interface MongoHandle {
  connection: Connection;
  /** Readiness: a round trip to the server. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Puts the service's own database name into a server URL (`mongodb://host:port` → `.../identity`). */
export function databaseUrl(serverUrl: string, dbName: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
}

/**
 * One mongoose connection per service, to its own database. `createConnection` rather than the
 * global `mongoose.connect`, so tests can run several services in one process.
 */
export async function connectMongo(
  serverUrl: string,
  dbName: string,
  options: { serverSelectionTimeoutMS?: number } = {},
): Promise<MongoHandle> {
  const connection = mongoose.createConnection(databaseUrl(serverUrl, dbName), {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
    // notice a database that came back within seconds, so readiness recovers quickly
    heartbeatFrequencyMS: 2_000,
    // Without this, operations issued while disconnected wait in a queue instead of failing fast.
    bufferCommands: false,
    autoIndex: true,
  });
  // request deadlines reach the database as maxTimeMS (models are declared after this)
  connection.plugin(deadlinePlugin);
  await connection.asPromise();
  return {
    connection,
    // bounded by the caller: HealthRegistry times every check out
    async ping() {
      const db = connection.db;
      if (!db || connection.readyState !== 1) throw new Error('mongo: not connected');
      await db.admin().command({ ping: 1 });
    },
    close: () => connection.close(),
  };
}
