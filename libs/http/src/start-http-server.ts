import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { type LoadShedder, sheddingListener } from './load-shedder';

export interface RunningHttpServer {
  server: http.Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then drops what is left. */
  close(graceMs?: number): Promise<void>;
}

export async function startHttpServer(
  listener: RequestListener,
  options: { port: number; host?: string; shedder?: LoadShedder },
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer(options.shedder ? sheddingListener(listener, options.shedder) : listener);
  // Above the gateway agent's idle timeout, so a reused upstream socket is never closed under it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
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
