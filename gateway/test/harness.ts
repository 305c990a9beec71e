import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AccessTokenInput, createAccessTokens, createTokenBlacklist } from '@lingua/auth';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { freePort, redisUrl, silentLogger, TestClock, uniqueName } from '@lingua/testing';
import { DEV_JWT_SECRET, loadGatewayConfig } from '../src/config';
import { type RunningGateway, startGateway } from '../src/server';

export const SECRET = DEV_JWT_SECRET;
export const tokens = createAccessTokens(SECRET);

export const USER: AccessTokenInput = {
  sub: '11111111-1111-4111-8111-111111111111',
  email: 'free@example.com',
  username: 'free_user',
  role: 'user',
  subscription_status: 'inactive',
};
export const SUBSCRIBER: AccessTokenInput = {
  ...USER,
  sub: '22222222-2222-4222-8222-222222222222',
  username: 'sub_user',
  role: 'subscriber',
  subscription_status: 'active',
};
export const ADMIN: AccessTokenInput = {
  ...USER,
  sub: '33333333-3333-4333-8333-333333333333',
  username: 'admin_user',
  role: 'admin',
};

export const bearer = (who: AccessTokenInput = USER) => `Bearer ${tokens.sign(who).token}`;
/** A token that expired an hour ago. */
export const expiredBearer = () =>
  `Bearer ${createAccessTokens(SECRET, new TestClock(new Date(Date.now() - 3 * 3600_000))).sign(USER).token}`;

export interface Seen {
  service: string;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Stub upstreams that say who they are and echo what they received. */
export class Stubs {
  readonly seen: Seen[] = [];
  private servers: http.Server[] = [];

  async start(service: string, behaviour: 'echo' | 'hang' = 'echo'): Promise<string> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        this.seen.push({ service, method: req.method!, url: req.url!, headers: req.headers, body });
        if (behaviour === 'hang') return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ service, url: req.url }));
      });
    });
    this.servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  last(): Seen {
    return this.seen.at(-1)!;
  }

  close() {
    for (const s of this.servers) {
      s.closeAllConnections();
      s.close();
    }
  }
}

/** Starts a gateway on a free port with its own Redis key prefixes unless `shared` ones are given. */
export async function gatewayWith(env: Record<string, string>): Promise<RunningGateway> {
  return startGateway(
    loadGatewayConfig({
      NODE_ENV: 'test',
      REDIS_URL: redisUrl(),
      GATEWAY_PORT: '0',
      RATE_LIMIT_PREFIX: uniqueName('gw-rl'),
      API_KEY_PREFIX: uniqueName('gw-key'),
      IDEMPOTENCY_PREFIX: uniqueName('gw-idem'),
      // a test's client leaves its keep-alive connection idle, and a stop waits for it for the
      // grace (or the clients' 5 s idle window), not the production 10 s; the tests of the grace
      // itself set their own
      SHUTDOWN_GRACE_MS: '100',
      ...env,
    }),
    { logger: silentLogger() },
  );
}

export async function stubServices(stubs: Stubs, overrides: Record<string, string> = {}) {
  return {
    IDENTITY_HTTP_URL: await stubs.start('identity'),
    FLASHCARDS_HTTP_URL: await stubs.start('flashcards'),
    SUBSCRIPTIONS_HTTP_URL: await stubs.start('subscriptions'),
    AI_HTTP_URL: await stubs.start('ai'),
    NOTIFICATIONS_HTTP_URL: await stubs.start('notifications'),
    ...overrides,
  };
}

export const nowhere = async () => `http://127.0.0.1:${await freePort()}`;

/** The shared blacklist, as identity writes it on logout (by the token's jti). */
export async function blacklistOf(): Promise<{ redis: RedisHandle; revoke(jti: string): Promise<void> }> {
  const redis = await connectRedis(redisUrl());
  const list = createTokenBlacklist(redis.client);
  return {
    redis,
    revoke: (jti: string) => list.revoke(jti, Math.floor(Date.now() / 1000) + 3600),
  };
}

/** The gateway's readiness as a probe sees it: status and body. */
export async function readiness(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/health/ready`);
  return { status: res.status, body: await res.json() };
}

/** Readiness with Redis reported `status`: still ready either way (Redis is shared, ADR 0034). */
export const redisIs = (status: 'up' | 'down') => ({
  status: 200,
  body: { ready: true, checks: { redis: { status } } },
});
