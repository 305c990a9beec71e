import { serviceEnv } from '@lingua/bootstrap';
import { loadConfig } from '@lingua/config';

/** identity: every variable it reads (see .env.example); defaults run locally with no setup. */
export const identityEnv = serviceEnv('identity', { http: 3001, grpc: 50051 });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(identityEnv, source);
export type IdentityConfig = ReturnType<typeof loadServiceConfig>;
