import type { RunningGateway } from '../src/server';
import { ADMIN, bearer, gatewayWith, Stubs, stubServices, USER } from './harness';

// The aggregate health endpoints fan out to every service: what an outsider sees of them, how often
// a flood reaches the services, and their own rate limit. The test's requests come from loopback
// (the internal network); an X-Forwarded-For from there (a trusted proxy) makes a public caller.
const stubs = new Stubs();
let gateway: RunningGateway;
const PUBLIC = { 'x-forwarded-for': '203.0.113.7' };

beforeAll(async () => {
  gateway = await gatewayWith({ ...(await stubServices(stubs)), HEALTH_RATE_LIMIT_PER_MINUTE: '30' });
});

afterAll(async () => {
  await gateway.stop();
  stubs.close();
});

const detailed = async (headers: Record<string, string>) => {
  const res = await fetch(`${gateway.url}/api/health/detailed`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};
const readinessCalls = () => stubs.seen.filter((s) => s.url === '/health/ready').length;

describe('/api/health/detailed exposure', () => {
  it('When an anonymous outsider asks, Then exactly the spec fields come back, no per-service breakdown', async () => {
    const res = await detailed(PUBLIC);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['Cache', 'Database', 'Environment', 'Memory', 'Status']);
  });

  it('When a signed-in user who is not an admin asks from outside, Then no breakdown either', async () => {
    expect((await detailed({ ...PUBLIC, authorization: bearer(USER) })).body.Services).toBeUndefined();
  });

  it('When an admin, an ops API key or the internal network asks, Then the breakdown is there', async () => {
    expect((await detailed({ ...PUBLIC, authorization: bearer(ADMIN) })).body.Services).toHaveProperty(
      'identity',
    );
    expect((await detailed({})).body.Services).toHaveProperty('notifications');

    const issued = await fetch(`${gateway.url}/api/v1/admin/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: bearer(ADMIN) },
      body: JSON.stringify({ name: 'Monitoring', client_id: 'ops-monitor', scopes: ['ops:read'] }),
    });
    expect(issued.status).toBe(201);
    const { api_key: secret } = (await issued.json()).data;
    const ops = { ...PUBLIC, 'x-api-key': secret, 'x-client-id': 'ops-monitor' };
    expect((await detailed(ops)).body.Services).toHaveProperty('ai');
    // the key with the wrong client id, or a key without the ops scope, sees no more than anyone
    expect((await detailed({ ...ops, 'x-client-id': 'someone-else' })).body.Services).toBeUndefined();
    // and an ops key opens nothing else
    const other = await fetch(`${gateway.url}/api/flashcards`, { headers: ops });
    expect(other.status).toBe(403);
  });

  it('When 40 callers ask at once, Then the services are asked once, not 40 times', async () => {
    const before = readinessCalls();
    const answers = await Promise.all(Array.from({ length: 40 }, () => detailed({})));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // five services, asked at most once for all forty (not at all while an earlier answer is fresh)
    expect(readinessCalls() - before).toBeLessThanOrEqual(5);
  });
});

describe('health rate limit', () => {
  it('When one outside address floods the aggregate paths, Then it gets 429 with Retry-After; internal callers and liveness do not', async () => {
    const flood = { 'x-forwarded-for': '198.51.100.23' };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++)
      statuses.push((await fetch(`${gateway.url}/api/health`, { headers: flood })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    const refused = await fetch(`${gateway.url}/api/health/detailed`, { headers: flood });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await fetch(`${gateway.url}/health/live`, { headers: flood })).status).toBe(200);
    expect((await fetch(`${gateway.url}/api/health`)).status).toBe(200);
  });
});
