import { startPrivateRedis, waitFor } from '@lingua/testing';
import { type Harness, ipHeader, newUser, startIdentity } from './harness';

// identity keeps lockouts, per-IP limits and the blacklist in Redis: without it sign-in cannot be
// decided safely, so the answer is "try again" (503), never a 500 that reads as a bug
describe('identity while its Redis is down', () => {
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  let h: Harness;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    h = await startIdentity({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
  }, 30_000);

  afterAll(async () => {
    await h.stop();
    await redis.dispose();
  });

  it('When Redis is down, Then login answers 503 in both formats; when it is back, login works again', async () => {
    const u = newUser();
    expect((await h.post('/api/v1/auth/register', u, ipHeader())).status).toBe(201);
    await redis.stop();

    const shared = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(shared.status).toBe(503);
    expect(shared.headers.get('retry-after')).toBe('5');
    expect(shared.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });

    const catalogue = await h.post('/api/auth/login', { email: u.email, password: u.password }, ipHeader());
    expect(catalogue.status).toBe(503);
    expect(catalogue.body).toMatchObject({ success: false, error: { code: 'SRV002' } });

    await redis.start();
    await waitFor(
      async () => {
        const res = await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader());
        expect(res.status).toBe(200);
      },
      { timeoutMs: 20_000 },
    );
  }, 60_000);
});
