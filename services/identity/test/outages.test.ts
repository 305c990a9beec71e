import { startPrivateRedis, waitFor } from '@lingua/testing';
import { eventually, type Harness, ipHeader, newUser, openMail, startIdentity } from './harness';

// identity keeps lockouts, per-IP limits and the blacklist in Redis: without it sign-in cannot be
// decided safely, so the answer is "try again" (503), never a 500 that reads as a bug. Redis is the
// source of truth only for those; user and token documents are written with the database's own
// atomic updates, so writes that need none of them go on during an outage.
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

  it('When Redis is down, Then a user write that needs no Redis state (e-mail verification) still succeeds', async () => {
    const u = newUser();
    const reg = await h.post('/api/auth/register', { ...u, confirmPassword: u.password }, ipHeader());
    expect(reg.status).toBe(201);
    let mail: { event: string; data: { mail: string; userId: string } } | undefined;
    await eventually(() => {
      mail = h.events.find(
        (e) => e.event === 'user.email_verification_requested' && e.data.userId === reg.body.data.user.id,
      ) as typeof mail;
      expect(mail).toBeDefined();
    });
    const token = new URL(openMail(mail!).url).searchParams.get('token')!;
    await redis.stop();
    try {
      const verified = await h.post('/api/auth/verify-email', { token });
      expect(verified.status).toBe(200);
      expect(verified.body.data.user.emailVerified).toBe(true);
    } finally {
      await redis.start();
    }
  }, 60_000);
});
