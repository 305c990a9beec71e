import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { AiConfig } from './config';

/**
 * Wiring of the AI service. Its gRPC server runs (health only) so peers and probes can reach it;
 * the LanguageService RPCs and the /api/ai routes arrive with the AI issue.
 */
export function defineAiService(config: AiConfig): ServiceDefinition<AiConfig> {
  return { config, useRedis: true, grpc: () => undefined };
}

export const start = (config: AiConfig) => startService(defineAiService(config));
