import { serviceEnv } from '@lingua/bootstrap';
import { loadConfig } from '@lingua/config';

/** subscriptions: every variable it reads (see .env.example); defaults run locally with no setup. */
export const subscriptionsEnv = serviceEnv('subscriptions', { http: 3003, grpc: 50053 });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(subscriptionsEnv, source);
export type SubscriptionsConfig = ReturnType<typeof loadServiceConfig>;
