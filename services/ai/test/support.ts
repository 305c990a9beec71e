import type { AccessTokenInput } from '@lingua/auth';
import { type RunningService, startService } from '@lingua/bootstrap';
import { createGrpcServer, devTrustedCallers, type GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  httpCall,
  isolatedServiceEnv,
  signTestCaller,
  silentLogger,
  TestClock,
  waitFor,
} from '@lingua/testing';
import { type AiConfig, loadServiceConfig } from '../src/config';
import { type AiOverrides, defineAiService, languageDataOf } from '../src/start';

/**
 * A stand-in for the subscriptions service's EntitlementsService on loopback: users in `premium`
 * are premium; `calls` counts the requests (to see the cache work).
 */
export async function startEntitlementsStandIn(port = 0) {
  const premium = new Set<string>();
  const state = { calls: 0 };
  const server: GrpcServer = createGrpcServer({
    logger: silentLogger(),
    // the real one's name and key check: ai's assertions are addressed to subscriptions
    serviceName: 'subscriptions',
    callers: devTrustedCallers(['ai']),
  });
  server.addService(
    loadPackage().lingua.subscriptions.v1.EntitlementsService.service,
    {
      GetEntitlements: async (req) => {
        state.calls++;
        const isPremium = premium.has(req.user_id);
        return {
          is_premium: isPremium,
          subscription_status: isPremium ? 'active' : 'inactive',
          features: [],
          expires_at: '',
        };
      },
      CheckFeatureAccess: async () => ({
        has_access: false,
        access_reason: 'free_feature',
        current_status: 'inactive',
      }),
    },
    { GetEntitlements: ['ai'], CheckFeatureAccess: [] },
  );
  const bound = await server.start(port, '127.0.0.1');
  return { premium, state, address: `127.0.0.1:${bound}`, stop: () => server.stop(100) };
}

export interface AiUnderTest {
  service: RunningService<AiConfig>;
  clock: TestClock;
  config: AiConfig;
  stop(): Promise<void>;
}

/** The AI service in this process: free ports, its own database, a hand-moved clock. */
export async function startAi(
  env: Record<string, string>,
  overrides: AiOverrides & { clock?: TestClock } = {},
): Promise<AiUnderTest> {
  const clock = overrides.clock ?? new TestClock('2026-03-10T10:00:00Z');
  const config = loadServiceConfig({ ...isolatedServiceEnv(), ...env });
  // no identity here unless the test gives one: the profile names no language
  const profiles = env.IDENTITY_ADDR ? {} : { profiles: { forUser: async () => ({}), close() {} } };
  const service = await startService(defineAiService(config, { clock, ...profiles, ...overrides }));
  return {
    service,
    clock,
    config,
    stop: async () => {
      await service.stop();
      await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
    },
  };
}

/**
 * Reads all of the service's language data, as its warm-up does after boot in production
 * (AI_PRELOAD_LANGUAGE_DATA, off in test stacks): a suite that asks for every language then meets
 * what the apps meet, not a first use that reads a whole dictionary inside one request's deadline
 * on a loaded machine. Resolves once the helper processes (lt-proc) have read theirs too.
 */
export async function readLanguageData(config: AiConfig): Promise<void> {
  const data = languageDataOf(config);
  for (const step of data.warmUpSteps()) while (!step()) await new Promise(setImmediate);
  await waitFor(
    () => {
      if (data.readingInBackground()) throw new Error('the language helpers are still reading');
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
}

/** A caller through the gateway (token and ai's assertion) for a (new) user, at the service clock's time. */
export function tokenFor(ai: AiUnderTest, user: Partial<AccessTokenInput> = {}) {
  return signTestCaller({ audience: 'ai', key: ai.config.assertionKey }, user, ai.clock);
}

/** fetch against a base URL, JSON in and out. */
export const call = httpCall;
