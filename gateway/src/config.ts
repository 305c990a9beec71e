import { z } from 'zod';
import { env, loadConfig } from '@lingua/config';

export const gatewayEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: env.string('127.0.0.1'),
  GATEWAY_PORT: env.port(8080),
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  IDENTITY_HTTP_URL: env.url('http://127.0.0.1:3001'),
  FLASHCARDS_HTTP_URL: env.url('http://127.0.0.1:3002'),
  SUBSCRIPTIONS_HTTP_URL: env.url('http://127.0.0.1:3003'),
  AI_HTTP_URL: env.url('http://127.0.0.1:3004'),
  NOTIFICATIONS_HTTP_URL: env.url('http://127.0.0.1:3005'),
  /** A service that has not answered by then gets a 504. */
  UPSTREAM_TIMEOUT_MS: env.int(15_000, 100, 120_000),
  LOG_LEVEL: env.logLevel(),
  APP_VERSION: env.string('0.1.0'),
});
export type GatewayConfig = z.infer<typeof gatewayEnv>;

export const loadGatewayConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(gatewayEnv, source);
