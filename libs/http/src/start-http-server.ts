import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
   * `Connection: close`), closes idle keep-alive connections, then drops what is left.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startHttpServer(
  listener: RequestListener,
  options: { port: number; host?: string; shedder?: LoadShedder },
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  let draining = false;
  const inner = options.shedder ? sheddingListener(listener, options.shedder) : listener;
  const server = http.createServer((req, res) => {
    if (draining) res.setHeader('connection', 'close');
    inner(req, res);
  });
  // Above the gateway agent's idle timeout, so a reused upstream socket is never closed under it.
  server.keepAliveTimeout = 65_000;
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
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
