import { randomUUID } from 'node:crypto';
import { type AccessTokenInput, createAccessTokens } from '@lingua/auth';
import { type RunningService, startService } from '@lingua/bootstrap';
import { createGrpcServer, type GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { isolatedServiceEnv, silentLogger, TestClock } from '@lingua/testing';
import { type AiConfig, loadServiceConfig } from '../src/config';
import { type AiOverrides, defineAiService } from '../src/start';

/**
 * A stand-in for the subscriptions service's EntitlementsService on loopback: users in `premium`
 * are premium; `calls` counts the requests (to see the cache work).
 */
export async function startEntitlementsStandIn(port = 0) {
  const premium = new Set<string>();
  const state = { calls: 0 };
  const server: GrpcServer = createGrpcServer({
    logger: silentLogger(),
    serviceName: 'subscriptions-stand-in',
  });
  server.addService(loadPackage().lingua.subscriptions.v1.EntitlementsService.service, {
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
  });
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
  const service = await startService(defineAiService(config, { clock, ...overrides }));
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

/** A bearer token for a (new) user, signed at the service clock's current time. */
export function tokenFor(ai: AiUnderTest, user: Partial<AccessTokenInput> = {}) {
  const sub = user.sub ?? randomUUID();
  const { token } = createAccessTokens(ai.config.jwtSecret, ai.clock).sign({
    sub,
    email: `${sub}@example.com`,
    username: `u${sub.slice(0, 8)}`,
    role: 'user',
    subscription_status: 'inactive',
    ...user,
  });
  return { sub, token, headers: { authorization: `Bearer ${token}` } };
}

/** fetch against a base URL, JSON in and out. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body !== undefined && {
      body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    }),
  });
  const buffer = Buffer.from(await res.arrayBuffer());
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = JSON.parse(buffer.toString('utf8'));
  } catch {
    body = buffer;
  }
  return { status: res.status, headers: res.headers, body };
}
