import { type Clock, systemClock } from '@lingua/auth';
import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import type { AiConfig } from './config';
import { analysisCache } from './data-access/analysis-cache';
import { entitlementsClient, type EntitlementsSource } from './data-access/entitlements.client';
import { imageRepository } from './data-access/image.repository';
import { quotaStore } from './data-access/quota.store';
import type { AiDeps } from './domain/ai-deps';
import { warmUpLanguageData } from './domain/analyze-text.use-case';
import { measuredProvider } from './data-access/measured-provider';
import { measuredCache, measuredQuotas } from './data-access/measured-stores';
import type { AiProvider } from './domain/providers/ai-provider';
import { localProvider } from './domain/providers/local-provider';
import { openAiProvider } from './domain/providers/openai-provider';
import { registerLanguageGrpc } from './entry-points/grpc/language.grpc';
import { registerHttp } from './entry-points/http';
import { aiIndexes } from './data-access/indexes';

export interface AiOverrides {
  clock?: Clock;
  provider?: AiProvider;
  entitlements?: EntitlementsSource;
}

export function providerFor(config: AiConfig): AiProvider {
  const ai = config.ai;
  if (ai.AI_PROVIDER === 'local') return localProvider();
  return openAiProvider({
    baseURL: ai.OPENAI_BASE_URL,
    apiKey: ai.OPENAI_API_KEY,
    model: ai.OPENAI_MODEL,
    imageModel: ai.OPENAI_IMAGE_MODEL,
    timeoutMs: ai.AI_PROVIDER_TIMEOUT_MS,
    maxRetries: ai.AI_PROVIDER_MAX_RETRIES,
  });
}

/** Wiring of the AI service: /api/ai routes over HTTP, LanguageService over gRPC. */
export function defineAiService(config: AiConfig, overrides: AiOverrides = {}): ServiceDefinition<AiConfig> {
  const clock = overrides.clock ?? systemClock;
  let entitlements: EntitlementsSource | undefined;
  const aiDeps = (deps: Parameters<NonNullable<ServiceDefinition<AiConfig>['http']>>[1]): AiDeps => {
    entitlements ??=
      overrides.entitlements ??
      entitlementsClient({
        address: config.ai.SUBSCRIPTIONS_ADDR,
        cacheMs: config.ai.AI_ENTITLEMENT_CACHE_MS,
        now: () => clock.now().getTime(),
        logger: deps.logger,
      });
    return {
      provider: measuredProvider(
        overrides.provider ? 'custom' : config.ai.AI_PROVIDER,
        overrides.provider ?? providerFor(config),
      ),
      quotas: measuredQuotas(quotaStore(deps.redis!.client)),
      entitlements,
      cache: measuredCache(analysisCache(deps.redis!.client, config.ai.AI_ANALYSIS_CACHE_HOURS * 3_600_000)),
      images: imageRepository(deps.mongo.connection),
      clock,
      limits: {
        generationsPerDay: config.ai.AI_FREE_GENERATIONS_PER_DAY,
        imagesPerDay: config.ai.AI_FREE_IMAGES_PER_DAY,
        lookupsPerWindow: config.ai.AI_FREE_LOOKUPS_PER_WINDOW,
        lookupWindowMs: config.ai.AI_LOOKUP_WINDOW_MINUTES * 60_000,
      },
    };
  };
  return {
    config,
    indexes: () => aiIndexes,
    useRedis: true,
    http: (app, deps) => {
      warmUpLanguageData();
      registerHttp(app, deps, aiDeps(deps));
    },
    grpc: (server) => registerLanguageGrpc(server),
  };
}

export const start = (config: AiConfig) => startService(defineAiService(config));
