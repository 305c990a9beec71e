import { serviceEnv } from '@lingua/bootstrap';
import { loadConfig } from '@lingua/config';

/** ai: every variable it reads (see .env.example); defaults run locally with no setup. */
export const aiEnv = serviceEnv('ai', { http: 3004, grpc: 50054 });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(aiEnv, source);
export type AiConfig = ReturnType<typeof loadServiceConfig>;
