import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE, metricsText } from './registry';

export interface RunningMetricsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * The process's /metrics endpoint, on its own port (`<SERVICE>_METRICS_PORT`, `GATEWAY_METRICS_PORT`):
 * separate from the API port, so the gateway never proxies it, the ingress never routes to it, and a
 * NetworkPolicy can open it to Prometheus alone. Only GET /metrics is answered.
 */
export async function startMetricsServer(options: {
  port: number;
  host?: string;
}): Promise<RunningMetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; try GET /metrics\n');
      return;
    }
    metricsText().then(
      (text) => {
        res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${err.message}\n`);
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
