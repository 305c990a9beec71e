import { freePort, httpCall, redisUrl, silentLogger, uniqueName } from '@lingua/testing';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { type Harness, type Reply, startIdentity } from './harness';

export interface BehindGateway {
  /** The identity service itself (its clock, its recorded events, its JWKS stand-in). */
  identity: Harness;
  gateway: RunningGateway;
  /** A call through the gateway, as an app makes it. */
  call(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  stop(): Promise<void>;
}

/**
 * Identity (startIdentity, with `env`) behind a real gateway, the way clients reach it. The other
 * services' upstreams point where nothing listens: a request the gateway admits to them fails with
 * 5xx, one it refuses is its own 401, so they show what the edge decides. The gateway's own
 * per-address budgets are out of the way (each is tested in the gateway); identity's are the subject.
 */
export async function startIdentityBehindGateway(env: Record<string, string> = {}): Promise<BehindGateway> {
  const identity = await startIdentity(env);
  const nowhere = async () => `http://127.0.0.1:${await freePort()}`;
  let gateway: RunningGateway;
  try {
    gateway = await startGateway(
      loadGatewayConfig({
        NODE_ENV: 'test',
        REDIS_URL: redisUrl(),
        GATEWAY_PORT: '0',
        GATEWAY_METRICS_PORT: '0',
        SHUTDOWN_GRACE_MS: '1000', // as isolatedServiceEnv: a stop does not wait out idle keep-alive connections
        RATE_LIMIT_PREFIX: uniqueName('gw-rl'),
        API_KEY_PREFIX: uniqueName('gw-key'),
        RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
        RATE_LIMIT_SIGNUP_PER_HOUR: '100000',
        RATE_LIMIT_RECOVERY_PER_HOUR: '100000',
        IDENTITY_HTTP_URL: identity.url,
        FLASHCARDS_HTTP_URL: await nowhere(),
        SUBSCRIPTIONS_HTTP_URL: await nowhere(),
        AI_HTTP_URL: await nowhere(),
        NOTIFICATIONS_HTTP_URL: await nowhere(),
      }),
      { logger: silentLogger() },
    );
  } catch (err) {
    await identity.stop();
    throw err;
  }
  const call: BehindGateway['call'] = (method, path, init = {}) =>
    httpCall(gateway.url, method, path, init) as Promise<Reply>;
  return {
    identity,
    gateway,
    call,
    post: (path, body, headers) =>
      call('POST', path, { ...(body !== undefined && { body }), ...(headers && { headers }) }),
    async stop() {
      await gateway.stop();
      await identity.stop();
    },
  };
}

// this run's own range: identity's per-address sign-in counters of an earlier run may still be in Redis
const base = Math.floor(Math.random() * 60_000);
let address = 0;
/** A client address of its own (the gateway trusts the loopback peer's X-Forwarded-For). */
export const fromAddress = () => {
  const n = base + address++;
  return { 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
};
