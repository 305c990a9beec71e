import { once } from 'node:events';
import type { Socket } from 'node:net';
import mongoose from 'mongoose';
import { capturedLogger, mongoUrl, uniqueName, waitFor } from '@lingua/testing';
import { watchMonitors } from './monitor-watchdog';

/** The driver's monitor of the one server, reached the way the watchdog reaches it. */
function monitorSocket(client: mongoose.mongo.MongoClient) {
  type Server = { monitor?: { connection?: { socket?: Socket } | null } };
  const topology = (client as unknown as { topology: { s: { servers: Map<string, Server> } } }).topology;
  const [server] = [...topology.s.servers.values()];
  return server?.monitor?.connection?.socket;
}

describe('the MongoDB monitor watchdog', () => {
  it('When the monitor is left waiting on a socket Node destroyed, Then its check fails, it reconnects and the server is selectable again', async () => {
    const { logger, lines } = capturedLogger('mongo-watchdog-test');
    const connection = mongoose.createConnection(mongoUrl(), {
      dbName: uniqueName('mongo_watchdog'),
      serverMonitoringMode: 'poll',
      heartbeatFrequencyMS: 500,
      serverSelectionTimeoutMS: 5_000,
    });
    await connection.asPromise();
    const client = connection.getClient();
    const watchdog = watchMonitors(client, { stuckAfterMs: 300, everyMs: 100, logger });
    try {
      const socket = await waitFor(() => {
        const found = monitorSocket(client);
        if (!found) throw new Error('the monitor has no connection yet');
        return found;
      });
      // what the restart left behind: the socket destroyed, the driver never told (no 'close')
      socket.removeAllListeners('close');
      socket.destroy();
      const afterWedge = once(client, 'serverHeartbeatSucceeded');
      await waitFor(() => expect(watchdog.rescued).toBe(1));
      await afterWedge; // a new monitor connection answered
      expect(monitorSocket(client)).not.toBe(socket);
      await connection.db!.admin().command({ ping: 1 });
      expect(lines.some((l) => /monitor waited on a destroyed socket/.test(String(l.msg)))).toBe(true);
    } finally {
      watchdog.stop();
      await connection.close();
    }
  });
});
