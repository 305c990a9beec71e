import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createAccessTokens, createTokenBlacklist } from '@lingua/auth';
import { connectRedis } from '@lingua/redis';
import { freePort, startPrivateRedis, uniqueName, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, readiness, redisIs, SECRET, Stubs, stubServices, USER } from './harness';

const stubs = new Stubs();
afterAll(() => stubs.close());

describe('two gateway processes', () => {
  const processes: ChildProcess[] = [];
  afterAll(() => processes.forEach((p) => p.kill('SIGTERM')));

  async function gatewayProcess(env: Record<string, string>): Promise<string> {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(__dirname, '../dist/main.js')], {
      env: {
        ...process.env,
        ...env,
        GATEWAY_PORT: String(port),
        GATEWAY_METRICS_PORT: '0',
        LOG_LEVEL: 'silent',
        NODE_ENV: 'test',
      },
      stdio: 'ignore',
    });
    processes.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => expect((await fetch(`${url}/health/live`)).status).toBe(200), {
      timeoutMs: 30_000,
    });
    return url;
  }

  it('When a user spends the budget through two gateway processes, Then the third call is refused by either', async () => {
    const env = {
      ...(await stubServices(stubs)),
      RATE_LIMIT_PREFIX: uniqueName('gw-rl-procs'),
      RATE_LIMIT_FREE_PER_HOUR: '2',
    };
    const [a, b] = await Promise.all([gatewayProcess(env), gatewayProcess(env)]);
    const authorization = bearer({ ...USER, sub: 'bbbbbbbb-0000-4000-8000-000000000001' });
    const call = (url: string) =>
      fetch(`${url}/api/v1/subscriptions/history`, { headers: { authorization } });
    expect((await call(a)).status).toBe(200);
    expect((await call(b)).status).toBe(200);
    const refusedA = await call(a);
    const refusedB = await call(b);
    expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
    expect(await refusedB.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  }, 60_000);
});

describe('when Redis goes away', () => {
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  let gateway: RunningGateway;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    gateway = await gatewayWith({
      ...(await stubServices(stubs)),
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    });
  }, 30_000);

  afterAll(async () => {
    await gateway.stop();
    await redis.dispose();
  });

  it('When Redis is down, Then tokens are checked against the revocations held in memory (for its stale window: libs/auth tests the end of it), API key and sign-in calls get 503 (never a pass); guests still pass on the in-memory limiter', async () => {
    const authorization = bearer(USER);
    expect((await fetch(`${gateway.url}/api/users/profile`, { headers: { authorization } })).status).toBe(
      200,
    );
    // revoked before the outage, as identity's logout does (the key and channel of @lingua/auth)
    const { token: revokedToken, claims } = createAccessTokens(SECRET).sign(USER);
    const revoked = `Bearer ${revokedToken}`;
    const writer = await connectRedis(`redis://127.0.0.1:${redis.port}`);
    await createTokenBlacklist(writer.client).revoke(claims.jti, claims.exp);
    await writer.close();
    await waitFor(async () =>
      expect(
        (await fetch(`${gateway.url}/api/users/profile`, { headers: { authorization: revoked } })).status,
      ).toBe(401),
    );
    await redis.stop();
    // the gateway has noticed, and stays ready: Redis is shared by every replica (ADR 0034)
    await waitFor(async () => expect(await readiness(gateway.url)).toEqual(redisIs('down')));
    // a Redis restart signs nobody out, and lets no revoked token in
    const res = await fetch(`${gateway.url}/api/users/profile`, { headers: { authorization } });
    expect(res.status).toBe(200);
    const again = await fetch(`${gateway.url}/api/users/profile`, { headers: { authorization: revoked } });
    expect(again.status).toBe(401);
    // the sign-in budget cannot be counted: refused, not counted per replica
    const login = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'guess-1' }),
    });
    expect(login.status).toBe(503);
    // an API key cannot be looked up: refused, never a pass
    const keyed = await fetch(`${gateway.url}/api/flashcard-sets`, {
      headers: { 'x-api-key': 'lingua_anything', 'x-client-id': 'partner-cms' },
    });
    expect(keyed.status).toBe(503);
    const guest = await fetch(`${gateway.url}/api/flashcards`);
    expect(guest.status).toBe(200);
    expect(guest.headers.get('ratelimit-limit')).toBe('1000');

    // and it recovers by itself once Redis is back, and signing in works
    await redis.start();
    await waitFor(async () => expect(await readiness(gateway.url)).toEqual(redisIs('up')), {
      timeoutMs: 20_000,
    });
    const loginAgain = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'guess-1' }),
    });
    expect(loginAgain.status).not.toBe(503);
  }, 60_000);
});
