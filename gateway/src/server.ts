import { createApp, finishApp, startHttpServer } from '@lingua/http';
import { createLogger, type Logger } from '@lingua/logger';
import { connectRedis } from '@lingua/redis';
import type { GatewayConfig } from './config';
import { healthRoutes } from './health.routes';
import { proxyTo, upstreamAgent } from './middleware/proxy';
import { ROUTES, serviceUrls } from './routes';

export interface RunningGateway {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Starts the gateway: request id and trace span, health, the route table's proxies, 404 and errors. */
export async function startGateway(
  config: GatewayConfig,
  options: { logger?: Logger } = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const redis = await connectRedis(config.REDIS_URL, { name: 'gateway' });
  const services = serviceUrls(config);
  // bodies are streamed to the services untouched, so the gateway does not parse JSON
  const app = createApp({ logger, parseJson: false });
  app.use(healthRoutes({ services, redis, version: config.APP_VERSION, environment: config.NODE_ENV }));
  for (const route of ROUTES)
    app.use(proxyTo(route, services[route.service], { timeoutMs: config.UPSTREAM_TIMEOUT_MS, logger }));
  finishApp(app, logger);
  const http = await startHttpServer(app, { port: config.GATEWAY_PORT, host: config.HOST });
  logger.info({ url: http.url }, 'gateway started');
  return {
    port: http.port,
    url: http.url,
    async stop() {
      await http.close();
      upstreamAgent.destroy();
      await redis.close();
    },
  };
}
