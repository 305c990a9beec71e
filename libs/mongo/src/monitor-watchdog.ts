import type { mongo } from 'mongoose';
import type { Logger } from '@lingua/logger';

export interface MonitorWatchdogOptions {
  /**
   * A heartbeat still unanswered after this long is looked at. A polling check is bounded by the
   * driver's connectTimeoutMS, so anything longer than that is not a slow server.
   */
  stuckAfterMs: number;
  /** How often heartbeats in flight are looked at. */
  everyMs?: number;
  logger?: Logger;
}

export interface MonitorWatchdog {
  /** Heartbeats failed by the watchdog so far (each one a monitor that would never have checked again). */
  readonly rescued: number;
  stop(): void;
}

/** The part of the driver's internals the rescue needs; checked at run time, since it is not API. */
interface WedgedMonitorView {
  topology?: {
    s?: {
      servers?: Map<
        string,
        { monitor?: { connection?: { socket?: NodeJS.EventEmitter & { destroyed?: boolean } } | null } }
      >;
    };
  };
}

/**
 * Keeps the driver's server monitors alive. Seen in the chaos suite (bench/chaos.js) with the Node
 * driver 7.8 and 7.9: when the database server restarts, a monitor can write its `hello` to a socket
 * Node has already destroyed but whose 'close' it has not yet emitted. The write fails silently, the
 * driver then waits for a 'drain' that never comes, and that monitor never checks again: the server
 * stays Unknown, every operation fails server selection, readiness stays 503, and nothing restarts
 * the process. The heartbeat events show such a check (started, never finished); when its socket is
 * destroyed, the watchdog fails the wait with an error, so the driver drops that connection and its
 * next check opens a new one. A check on a live socket is never touched.
 */
export function watchMonitors(client: mongo.MongoClient, options: MonitorWatchdogOptions): MonitorWatchdog {
  const inFlight = new Map<string, number>(); // address → when its current heartbeat started
  let rescued = 0;
  // The timer runs only while a heartbeat is in flight: a check answers in milliseconds, so an idle
  // process is not woken every second to look at nothing.
  let timer: NodeJS.Timeout | undefined;
  const started = (e: { connectionId: string }) => {
    inFlight.set(e.connectionId, Date.now());
    if (!timer) {
      timer = setInterval(look, options.everyMs ?? 1_000);
      timer.unref();
    }
  };
  const finished = (e: { connectionId: string }) => {
    inFlight.delete(e.connectionId);
    if (inFlight.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  };
  client.on('serverHeartbeatStarted', started);
  client.on('serverHeartbeatSucceeded', finished);
  client.on('serverHeartbeatFailed', finished);

  function look() {
    const now = Date.now();
    for (const [address, since] of inFlight) {
      if (now - since < options.stuckAfterMs) continue;
      const servers = (client as unknown as WedgedMonitorView).topology?.s?.servers;
      const socket = servers?.get(address)?.monitor?.connection?.socket;
      // wedged: destroyed, and the driver waiting for it to drain; a slow check on a live socket, or
      // a new connection still being opened, is left to the driver's own timeouts
      if (!socket?.destroyed || socket.listenerCount('drain') === 0) continue;
      inFlight.delete(address);
      rescued++;
      options.logger?.warn(
        { address, stuckMs: now - since },
        'MongoDB monitor waited on a destroyed socket; failing its check so it reconnects',
      );
      socket.emit('error', new Error(`monitor socket to ${address} was destroyed during a check`));
    }
  }

  return {
    get rescued() {
      return rescued;
    },
    stop() {
      clearInterval(timer);
      client.off('serverHeartbeatStarted', started);
      client.off('serverHeartbeatSucceeded', finished);
      client.off('serverHeartbeatFailed', finished);
    },
  };
}
