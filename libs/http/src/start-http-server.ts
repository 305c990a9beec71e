import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { runWithRequestContext } from '@lingua/logger';
import { errorBodyForPath } from './envelopes';
import { type LoadShedder, sheddingListener } from './load-shedder';

/**
 * A request node's parser refuses (headers or URL over its limit, a malformed request line) never
 * reaches express: node would answer a bare 400/431 with no body. Answer in the path's envelope instead.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  // the request line, if it was read, names the path and so the envelope
  const path =
    /^[A-Z]+ (\/[^?\s]*)/.exec(err.rawPacket?.subarray(0, 2048).toString('latin1') ?? '')?.[1] ?? '/';
  const message = tooLarge ? 'Request line or headers too large' : 'Malformed HTTP request';
  // no request was built, so no request id: one is made so the answer can still be quoted
  const requestId = randomUUID();
  const body = JSON.stringify(
    runWithRequestContext({ requestId, correlationId: requestId }, () =>
      errorBodyForPath(path, new AppError('INVALID_INPUT', message)),
    ),
  );
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface RunningHttpServer {
  server: http.Server;
  port: number;
  url: string;
  /**
   * The process is going away: from now on every answer carries `Connection: close`, so clients
   * move their next requests to another replica while this one still serves.
   */
  drain(): void;
  /**
   * Stops accepting, lets in-flight requests finish (up to graceMs, answered with
   * `Connection: close`), closes keep-alive connections still idle after the clients' idle window
   * (IDLE_WINDOW_MS), then drops what is left.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Services announce `Keep-Alive: timeout=5`: undici and node's agent then drop an idle connection
 * on their side a second or more before the server would, so a reused socket is never closed under
 * a request, and a draining replica is rid of idle clients within that window.
 */
const SERVICE_KEEP_ALIVE_MS = 5_000;
/**
 * How long a closing server waits before it closes idle keep-alive connections itself. Closing one
 * at once races the client's next request on it (the request is lost, and a POST cannot be
 * retried); after the window, clients that honour the keep-alive hint, or a proxy whose upstream
 * keep-alive is shorter (nginx `keepalive_timeout` ≤ 4 s), have closed theirs.
 */
export const IDLE_WINDOW_MS = SERVICE_KEEP_ALIVE_MS;

export async function startHttpServer(
  listener: RequestListener,
  options: {
    port: number;
    host?: string;
    shedder?: LoadShedder;
    /** Wraps the whole listener, shedding included (request metrics: shed answers count too). */
    instrument?: (listener: RequestListener) => RequestListener;
    /**
     * Idle keep-alive timeout. Services: 5 s (above). The gateway, behind load balancers that keep
     * idle connections 60 s, passes more, so that it never closes one under them.
     */
    keepAliveMs?: number;
  },
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  let draining = false;
  const admitted = options.shedder ? sheddingListener(listener, options.shedder) : listener;
  const inner = options.instrument ? options.instrument(admitted) : admitted;
  const server = http.createServer((req, res) => {
    if (draining) res.setHeader('connection', 'close');
    inner(req, res);
  });
  server.keepAliveTimeout = options.keepAliveMs ?? SERVICE_KEEP_ALIVE_MS;
  server.headersTimeout = 66_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    drain: () => void (draining = true),
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        draining = true;
        options.shedder?.stop();
        const timers = [
          setTimeout(() => server.closeIdleConnections(), Math.min(IDLE_WINDOW_MS, graceMs)),
          setTimeout(() => server.closeAllConnections(), graceMs),
        ];
        for (const timer of timers) timer.unref();
        // net.Server's close stops accepting and calls back once every connection has ended; unlike
        // http.Server's, it does not close idle keep-alive connections at once (see IDLE_WINDOW_MS)
        net.Server.prototype.close.call(server, () => {
          for (const timer of timers) clearTimeout(timer);
          server.close(); // http.Server's own clean-up (its connection-checking timer); nothing left to close
          resolve();
        });
      }),
  };
}
