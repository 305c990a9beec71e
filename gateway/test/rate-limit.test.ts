import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, uniqueName, waitFor } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { bearer, gatewayWith, Stubs, stubServices, SUBSCRIBER, USER } from './harness';

// Two gateway replicas sharing one Redis (the same counter prefix), as in production.
const stubs = new Stubs();
let one: RunningGateway;
let two: RunningGateway;

beforeAll(async () => {
  const env = {
    ...(await stubServices(stubs)),
    RATE_LIMIT_PREFIX: uniqueName('gw-rl-shared'),
    RATE_LIMIT_FREE_PER_HOUR: '4',
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: '6',
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '3',
    RATE_LIMIT_LOGIN_PER_MINUTE: '5',
    RATE_LIMIT_SIGNUP_PER_HOUR: '3',
    RATE_LIMIT_RECOVERY_PER_HOUR: '2',
  };
  [one, two] = await Promise.all([gatewayWith(env), gatewayWith(env)]);
});

afterAll(async () => {
  await Promise.all([one.stop(), two.stop()]);
  stubs.close();
});

const user = (sub: string, base = USER) => ({ ...base, sub });

describe('rate limits shared by the gateway replicas', () => {
  it('When a free user spends the hourly budget across both gateways, Then the next call is 429 with Retry-After and RateLimit headers', async () => {
    const authorization = bearer(user('aaaaaaaa-0000-4000-8000-000000000001'));
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 4; i++) {
      const gw = i % 2 === 0 ? one : two;
      const res = await fetch(`${gw.url}/api/v1/subscriptions/history`, { headers: { authorization } });
      statuses.push(res.status);
      remaining.push(res.headers.get('ratelimit-remaining')!);
      expect(res.headers.get('ratelimit-limit')).toBe('4');
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(remaining).toEqual(['3', '2', '1', '0']);

    const limited = await fetch(`${two.url}/api/v1/subscriptions/history`, { headers: { authorization } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('ratelimit-policy')).toBe('4;w=3600');
    expect(await limited.json()).toMatchObject({
      success: false,
      data: null,
      error: { code: 'RATE_LIMITED' },
    });

    // the status operation reports the spent budget; it is refused too once the budget is gone
    const status = await fetch(`${one.url}/api/v1/status`, { headers: { authorization } });
    expect(status.status).toBe(429);
  });

  it('When a user asks for the status, Then it reports the remaining budget, its reset time and the API state', async () => {
    const authorization = bearer(user('aaaaaaaa-0000-4000-8000-000000000002'));
    await fetch(`${one.url}/api/v1/subscriptions/history`, { headers: { authorization } });
    const res = await fetch(`${two.url}/api/v1/status`, { headers: { authorization } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      data: { api_status: 'operational', maintenance_mode: false, rate_limit_remaining: 2 },
      meta: { api_version: 'v1' },
    });
    const reset = Date.parse(body.data.rate_limit_reset);
    expect(reset).toBeGreaterThan(Date.now() + 3500_000);
    expect(reset).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
  });

  it('When a subscriber calls, Then the subscriber budget applies', async () => {
    const authorization = bearer(user('aaaaaaaa-0000-4000-8000-000000000003', SUBSCRIBER));
    const res = await fetch(`${one.url}/api/v1/status`, { headers: { authorization } });
    expect(res.headers.get('ratelimit-limit')).toBe('6');
    expect((await res.json()).data.rate_limit_remaining).toBe(5);
  });

  it('When the catalogue budget is spent, Then 429 with RATE001 in the Group C envelope', async () => {
    const authorization = bearer(user('aaaaaaaa-0000-4000-8000-000000000004'));
    for (let i = 0; i < 3; i++)
      expect(
        (await fetch(`${[one, two][i % 2]!.url}/api/learning/due`, { headers: { authorization } })).status,
      ).toBe(200);
    const res = await fetch(`${one.url}/api/learning/due`, { headers: { authorization } });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'RATE001' } });
  });

  it('When guests call, Then they are counted by client IP', async () => {
    const ip = '203.0.113.7'; // the gateway trusts X-Forwarded-For from loopback only (the test client)
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${one.url}/api/flashcards`, { headers: { 'x-forwarded-for': ip } })).status).toBe(
        200,
      );
    const res = await fetch(`${two.url}/api/flashcards`, { headers: { 'x-forwarded-for': ip } });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ success: false, error: 'Rate limit exceeded' });
    expect(
      (await fetch(`${two.url}/api/flashcards`, { headers: { 'x-forwarded-for': '203.0.113.8' } })).status,
    ).toBe(200);
  });

  it('When one IP tries to sign in a sixth time within a minute, Then 429 on both gateways', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.9', 'content-type': 'application/json' };
    const body = JSON.stringify({ email: 'a@example.com', password: 'Secret123' });
    for (let i = 0; i < 5; i++) {
      const gw = i % 2 === 0 ? one : two;
      expect((await fetch(`${gw.url}/api/v1/auth/login`, { method: 'POST', headers, body })).status).toBe(
        200,
      );
    }
    const res = await fetch(`${two.url}/api/v1/auth/login`, { method: 'POST', headers, body });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMITED' },
      meta: { requestId: expect.any(String) },
    });
    const groupC = await fetch(`${one.url}/api/auth/login`, { method: 'POST', headers, body });
    expect(groupC.status).toBe(429);
    expect((await groupC.json()).error.code).toBe('RATE001');
    // other addresses and other auth operations are not affected
    const other = { ...headers, 'x-forwarded-for': '198.51.100.10' };
    expect(
      (await fetch(`${one.url}/api/v1/auth/login`, { method: 'POST', headers: other, body })).status,
    ).toBe(200);
    expect((await fetch(`${one.url}/api/v1/auth/register`, { method: 'POST', headers, body })).status).toBe(
      200,
    );
  });
});

describe('budgets per client address on the public auth operations', () => {
  const post = (gw: RunningGateway, path: string, ip: string) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'x-forwarded-for': ip, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'victim@example.com' }),
    });

  it('When one address creates accounts past the hourly budget on both faces and both gateways, Then 429 RATE001 with Retry-After', async () => {
    const ip = '192.0.2.31';
    const statuses: number[] = [];
    for (const path of ['/api/v1/auth/register', '/api/auth/register', '/api/v1/auth/register'])
      statuses.push((await post(statuses.length % 2 ? two : one, path, ip)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await post(two, '/api/auth/register', ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(limited.headers.get('ratelimit-policy')).toBe('3;w=3600');
    expect(await limited.json()).toMatchObject({ success: false, error: { code: 'RATE001' } });
    // signing in from there is another budget
    expect((await post(one, '/api/v1/auth/login', ip)).status).toBe(200);
  });

  it('When one address asks for reset and verification e-mails past the budget, Then 429, while another address is served', async () => {
    const ip = '192.0.2.32';
    expect((await post(one, '/api/auth/forgot-password', ip)).status).toBe(200);
    expect((await post(two, '/api/auth/verify-email', ip)).status).toBe(200);
    const limited = await post(one, '/api/auth/reset-password', ip);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ success: false, error: { code: 'RATE001' } });
    expect((await post(one, '/api/auth/forgot-password', '192.0.2.33')).status).toBe(200);
  });

  it('When social sign-in is tried repeatedly, Then it draws from the sign-in budget', async () => {
    const ip = '192.0.2.34';
    const paths = [
      '/api/v1/auth/apple',
      '/api/v1/auth/google',
      '/api/auth/google',
      '/api/auth/login',
      '/api/v1/auth/login',
    ];
    for (const path of paths) expect((await post(one, path, ip)).status).toBe(200);
    const limited = await post(two, '/api/v1/auth/apple', ip);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-policy')).toBe('5;w=60');
  });

  it('When an IPv6 client rotates through its /64, Then every address of it shares one budget, and the next /64 has its own', async () => {
    const prefix = '2001:db8:5:7';
    for (let i = 1; i <= 3; i++)
      expect(
        (await post(i % 2 ? one : two, '/api/v1/auth/register', `${prefix}::${i.toString(16)}`)).status,
      ).toBe(200);
    expect((await post(one, '/api/v1/auth/register', `${prefix}:ffff:1:2:3`)).status).toBe(429);
    expect((await post(one, '/api/v1/auth/register', '2001:db8:5:8::1')).status).toBe(200);
  });
});

describe('a busy caller: points leased in batches from the shared budget', () => {
  const busyStubs = new Stubs();
  const prefix = uniqueName('gw-rl-lease');
  let a: RunningGateway;
  let b: RunningGateway;
  let redis: RedisHandle;

  beforeAll(async () => {
    const env = {
      ...(await stubServices(busyStubs)),
      RATE_LIMIT_PREFIX: prefix,
      RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '300',
      // bursts of 300 at once on a busy test machine may be shed (503); this test is about the budget
      LOAD_SHED: 'false',
      // nor may 300 reads at once on a loaded machine run into the 3 s read deadline (504)
      DEADLINE_READ_MS: '14000',
    };
    [a, b] = await Promise.all([gatewayWith(env), gatewayWith(env)]);
    redis = await connectRedis(redisUrl());
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await redis.close();
    busyStubs.close();
  });

  /** The points Redis counts as spent for this describe's callers (leased points included until given back). */
  const spentInRedis = async () => {
    const keys = await redis.client.keys(`${prefix}:*`);
    const values = await Promise.all(keys.map((k) => redis.client.get(k)));
    return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
  };

  const burst = (gw: RunningGateway, n: number, authorization: string) =>
    Promise.all(
      Array.from({ length: n }, () =>
        fetch(`${gw.url}/api/flashcards`, { headers: { authorization } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );

  it('When one caller bursts over both gateways, Then never more than the budget passes, and leased points left over come back', async () => {
    const authorization = bearer(user('aaaaaaaa-0000-4000-8000-0000000000aa'));
    const first = await burst(a, 100, authorization);
    expect(first.filter((s) => s === 200)).toHaveLength(100);

    // leases live 1 s; then what the first gateway did not hand out is back in Redis: it counts the 100 served
    await waitFor(async () => expect(await spentInRedis()).toBe(100), { timeoutMs: 10_000 });
    const probe = await fetch(`${b.url}/api/flashcards`, { headers: { authorization } });
    expect(probe.headers.get('ratelimit-remaining')).toBe('199');

    // both at once: points one replica still holds are not available to the other for up to 1 s
    const both = (await Promise.all([burst(a, 150, authorization), burst(b, 150, authorization)])).flat();
    const passed = both.filter((s) => s === 200).length;
    expect(passed).toBeLessThanOrEqual(199);
    expect(passed).toBeGreaterThanOrEqual(199 - 2 * 16);
    expect(both.filter((s) => s !== 200 && s !== 429)).toEqual([]);

    // and they come back: exactly the rest of the budget passes afterwards, then 429. Redis also counts
    // the refused requests here, so its count is no signal: each replica says when every point it
    // leased is spent or back in Redis (its sweep gave the expired leases back and Redis answered)
    await waitFor(() => expect(a.outstandingRatePoints() + b.outstandingRatePoints()).toBe(0), {
      timeoutMs: 10_000,
    });
    const last = await burst(b, 40, authorization);
    expect(last.filter((s) => s === 200)).toHaveLength(199 - passed);
  }, 30_000);
});
