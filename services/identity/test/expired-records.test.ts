import { silentLogger } from '@lingua/testing';
import { oneTimeTokenRepository } from '../src/data-access/one-time-token.repository';
import { refreshFamilyRepository } from '../src/data-access/refresh-family.repository';
import { expiredRecordsSweeper } from '../src/entry-points/workers/expired-records.sweeper';
import { bearer, eventually, type Harness, ipHeader, newUser, startIdentity } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startIdentity();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const DAY = 24 * 3600_000;

describe('sweep of expired identity records', () => {
  it('When sign-ins and reset tokens have long expired, Then the sweep deletes them and keeps what is still live', async () => {
    const u = newUser();
    const reg = await h.post('/api/v1/auth/register', u, ipHeader());
    expect(reg.status).toBe(201);
    const short = await h.post(
      '/api/v1/auth/login',
      { email: u.email, password: u.password, rememberMe: false },
      ipHeader(),
    );
    expect(short.status).toBe(200);
    await h.post('/api/auth/forgot-password', { email: u.email });

    const connection = h.service.deps.mongo.connection;
    const families = connection.collection('refresh_families');
    const tokens = connection.collection('one_time_tokens');
    const userId = reg.body.data.userId as string;
    expect(await families.countDocuments({ userId })).toBe(2);
    expect(await tokens.countDocuments({ userId })).toBeGreaterThan(0);

    // the reset e-mail's event has left through the outbox (a token still carrying it is kept)
    await eventually(() =>
      expect(
        h.events.some((e) => e.event === 'user.password_reset_requested' && e.data.userId === userId),
      ).toBe(true),
    );
    await eventually(async () =>
      expect(await tokens.countDocuments({ userId, _outboxPending: true })).toBe(0),
    );

    // the 24-hour sign-in expired more than a week ago; the 30-day one is still live
    h.clock.advance(DAY + 7 * DAY + 1000);
    const sweeper = expiredRecordsSweeper({
      families: refreshFamilyRepository(connection, { historyLimit: 20 }),
      oneTimeTokens: oneTimeTokenRepository(connection),
      clock: h.clock,
      logger: silentLogger(),
    });
    await sweeper.runNow();
    await sweeper.stop();

    expect(await families.countDocuments({ userId })).toBe(1);
    expect(await tokens.countDocuments({ userId })).toBe(0);
    const gone = await h.post('/api/v1/auth/refresh', undefined, bearer(short.body.data.refreshToken));
    expect(gone.status).toBe(401);
    const live = await h.post('/api/v1/auth/refresh', undefined, bearer(reg.body.data.refreshToken));
    expect(live.status).toBe(200);
  });
});
