import { type Clock, systemClock } from '@lingua/auth';
import { type ServiceDefinition, startService } from '@lingua/bootstrap';
import { deletedUsers } from '@lingua/mongo';
import { createCallSigner } from '@lingua/grpc';
import type { AiConfig } from './config';
import { analysisCache } from './data-access/analysis-cache';
import {
  entitlementsClient,
  type EntitlementsSource,
  forgetEntitlements,
} from './data-access/entitlements.client';
import { imageRepository } from './data-access/image.repository';
import { profileLanguagesClient } from './data-access/profile-languages.client';
import { installedLanguageData } from './data-access/language-data';
import { quotaStore } from './data-access/quota.store';
import { userUsageEraser } from './data-access/user-usage.eraser';
import type { AiDeps } from './domain/ai-deps';
import type { ProfileLanguagesSource } from './domain/ports';
import { warmUpLanguageData } from './domain/analyze-text.use-case';
import { measuredProvider } from './data-access/measured-provider';
import { measuredCache, measuredQuotas } from './data-access/measured-stores';
import type { AiProvider } from './domain/providers/ai-provider';
import { localProvider } from './domain/providers/local-provider';
import { openAiProvider } from './domain/providers/openai-provider';
import { registerLanguageGrpc } from './entry-points/grpc/language.grpc';
import { subscriptionChangedSubscriber } from './entry-points/events/subscription-changed.subscriber';
import { userDeletedSubscriber } from './entry-points/events/user-deleted.subscriber';
import { registerHttp } from './entry-points/http';
import { aiIndexes } from './data-access/indexes';

export interface AiOverrides {
  clock?: Clock;
  provider?: AiProvider;
  entitlements?: EntitlementsSource;
  profiles?: ProfileLanguagesSource;
}

/** The installed language data of this configuration (one reading per process and directories). */
export const languageDataOf = (config: AiConfig) =>
  installedLanguageData({
    wordnetDir: config.ai.AI_WORDNET_DIR,
    dictdDir: config.ai.AI_DICTD_DIR,
    apertiumDir: config.ai.AI_APERTIUM_DIR,
    hunspellDir: config.ai.AI_HUNSPELL_DIR,
  });

export function providerFor(config: AiConfig): AiProvider {
  const ai = config.ai;
  if (ai.AI_PROVIDER === 'local') return localProvider(languageDataOf(config));
  return openAiProvider({
    baseURL: ai.OPENAI_BASE_URL,
    apiKey: ai.OPENAI_API_KEY,
    model: ai.OPENAI_MODEL,
    imageModel: ai.OPENAI_IMAGE_MODEL,
    timeoutMs: ai.AI_PROVIDER_TIMEOUT_MS,
    maxRetries: ai.AI_PROVIDER_MAX_RETRIES,
  });
}

/**
 * Reads the language data in slices between requests (each ~10–50 ms), so the first look-up does not
 * wait and health checks are answered meanwhile.
 */
function backgroundWarmUp(data: ReturnType<typeof languageDataOf>) {
  const steps = data.warmUpSteps();
  let timer: NodeJS.Immediate | undefined;
  const next = () => {
    const step = steps[0];
    if (!step) return;
    if (step()) steps.shift();
    timer = setImmediate(next);
  };
  timer = setImmediate(next);
  return {
    /** Every step ran and the helper processes have read their dictionaries. */
    done: () => steps.length === 0 && !data.readingInBackground(),
    async stop() {
      steps.length = 0;
      if (timer) clearImmediate(timer);
    },
  };
}

/** Wiring of the AI service: /api/ai routes over HTTP, LanguageService over gRPC. */
export function defineAiService(config: AiConfig, overrides: AiOverrides = {}): ServiceDefinition<AiConfig> {
  const clock = overrides.clock ?? systemClock;
  const preload = config.ai.AI_PROVIDER === 'local' && config.ai.AI_PRELOAD_LANGUAGE_DATA;
  let warmUp: ReturnType<typeof backgroundWarmUp> | undefined;
  let entitlements: EntitlementsSource | undefined;
  let profiles: ProfileLanguagesSource | undefined;
  const aiDeps = (deps: Parameters<NonNullable<ServiceDefinition<AiConfig>['http']>>[1]): AiDeps => {
    entitlements ??=
      overrides.entitlements ??
      entitlementsClient({
        address: config.ai.SUBSCRIPTIONS_ADDR,
        cacheMs: config.ai.AI_ENTITLEMENT_CACHE_MS,
        now: () => clock.now().getTime(),
        redis: deps.redis!.client,
        logger: deps.logger,
        // real time, not the quotas' clock: the callee checks the assertion against its own
        signer: createCallSigner('ai', config.grpc.grpcSigningKey),
      });
    profiles ??=
      overrides.profiles ??
      profileLanguagesClient({
        address: config.ai.IDENTITY_ADDR,
        cacheMs: config.ai.AI_PROFILE_CACHE_MS,
        deadlineMs: config.ai.AI_PROFILE_DEADLINE_MS,
        now: () => Date.now(),
        logger: deps.logger,
        signer: createCallSigner('ai', config.grpc.grpcSigningKey),
      });
    return {
      provider: measuredProvider(
        overrides.provider ? 'custom' : config.ai.AI_PROVIDER,
        overrides.provider ?? providerFor(config),
      ),
      quotas: measuredQuotas(quotaStore(deps.redis!.client)),
      entitlements,
      profiles,
      cache: measuredCache(analysisCache(deps.redis!.client, config.ai.AI_ANALYSIS_CACHE_HOURS * 3_600_000)),
      images: imageRepository(deps.mongo.connection),
      deletedUsers: deletedUsers(deps.mongo.connection),
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
      if (config.ai.AI_PROVIDER === 'local') {
        // what the offline provider has on this machine: logged once, and in readiness (optional
        // checks: a missing dictionary degrades one language pair, it does not stop the service)
        const statuses = languageDataOf(config).status();
        const missing = statuses.filter((s) => !s.available);
        deps.logger.info(
          {
            available: statuses.filter((s) => s.available).map((s) => s.name),
            missing: missing.map((s) => s.name),
          },
          'local provider language data',
        );
        for (const s of missing) deps.logger.warn({ part: s.name }, s.message);
        // not ready until the data is read: a request routed here before would read whole
        // dictionaries itself, seconds past its deadline (the rollout waits instead)
        if (preload)
          deps.health.register({
            name: 'language_data_loaded',
            check: async () => {
              if (!warmUp?.done()) throw new Error('still reading the language data');
            },
          });
        for (const s of statuses)
          deps.health.register({
            name: `language_data:${s.name}`,
            optional: true,
            check: async () => {
              if (!s.available) throw new Error(s.message);
            },
          });
      }
      registerHttp(app, deps, aiDeps(deps));
    },
    workers: () => [
      ...(preload ? [(warmUp = backgroundWarmUp(languageDataOf(config)))] : []),
      // the gRPC channel to identity ends with the service (a test starts many in one process)
      { stop: async () => (overrides.profiles ? undefined : profiles?.close()) },
    ],
    grpc: (server) => registerLanguageGrpc(server),
    consumers: (deps) => [
      userDeletedSubscriber({
        images: imageRepository(deps.mongo.connection),
        usage: userUsageEraser(deps.redis!.client),
        tombstones: deletedUsers(deps.mongo.connection),
      }),
      subscriptionChangedSubscriber(forgetEntitlements(deps.redis!.client)),
    ],
    grpcCallers: config.grpc.grpcCallers,
  };
}

export const start = (config: AiConfig) => startService(defineAiService(config));
