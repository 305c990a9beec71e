import { randomUUID } from 'node:crypto';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, startPrivateRedis, TestClock, waitFor } from '@lingua/testing';
import { type BlacklistMirror, createBlacklistMirror } from './blacklist-mirror';
import { createTokenBlacklist, userRevocation } from './token-blacklist';

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const someJti = () => randomUUID();
/** waitFor retries on a throw; these conditions return booleans. */
const eventually = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  waitFor(
    async () => {
      if (!(await check())) throw new Error('condition not met yet');
    },
    { timeoutMs },
  );

describe('blacklist mirror (revoked tokens in memory, fed by Redis pub/sub)', () => {
  let redis: RedisHandle;
  let writer: RedisHandle;
  /** Each test starts its own mirror; every one started is stopped after the test. */
  const started: BlacklistMirror[] = [];
  const startMirror = async (...args: Parameters<typeof createBlacklistMirror>) => {
    const m = await createBlacklistMirror(...args);
    started.push(m);
    return m;
  };

  beforeAll(async () => {
    redis = await connectRedis(redisUrl());
    writer = await connectRedis(redisUrl()); // another process's client (the identity service)
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((m) => m.stop()));
  });
  afterAll(async () => {
    await redis.close();
    await writer.close();
  });

  it('When a token (its jti) was revoked before the mirror started, Then the mirror knows it from the index', async () => {
    const early = someJti();
    await createTokenBlacklist(writer.client).revoke(early, inAnHour());
    const mirror = await startMirror(redis.client);
    expect(mirror.live).toBe(true);
    await expect(mirror.isRevoked(early)).resolves.toBe(true);
    await expect(mirror.isRevoked(someJti())).resolves.toBe(false);
    // the same answers without a promise, while live
    expect(mirror.revokedNow(early)).toBe(true);
    expect(mirror.revokedNow(someJti())).toBe(false);
  });

  it('When another client revokes a jti, Then the mirror answers true from memory, without asking Redis', async () => {
    const mirror = await startMirror(redis.client);
    const jti = someJti();
    await createTokenBlacklist(writer.client).revoke(jti, inAnHour());
    await eventually(() => mirror.isRevoked(jti), 2_000);
    // with the shared connection closed, an answer can only come from memory
    const probe = await connectRedis(redisUrl());
    const mirrorOfProbe = await startMirror(probe.client);
    await mirrorOfProbe.isRevoked(jti); // loaded while connected
    const other = someJti();
    await createTokenBlacklist(writer.client).revoke(other, inAnHour());
    await eventually(() => mirrorOfProbe.isRevoked(other), 2_000);
    await probe.client.close(); // the main connection is gone, the subscription is not
    await expect(mirrorOfProbe.isRevoked(other)).resolves.toBe(true);
    await expect(mirrorOfProbe.isRevoked(someJti())).resolves.toBe(false);
  });

  it('When every token of a user is revoked at once, Then any token of that user is refused, by the mirror and by Redis, and other users are not', async () => {
    const mirror = await startMirror(redis.client);
    const user = someJti();
    await createTokenBlacklist(writer.client).revoke(userRevocation(user), inAnHour());
    await eventually(() => mirror.isRevoked(someJti(), user), 2_000);
    expect(mirror.revokedNow(someJti(), user)).toBe(true);
    expect(mirror.revokedNow(someJti(), someJti())).toBe(false);
    expect(mirror.revokedNow(someJti())).toBe(false);
    const direct = createTokenBlacklist(redis.client);
    await expect(direct.isRevoked(someJti(), user)).resolves.toBe(true);
    await expect(direct.isRevoked(someJti(), someJti())).resolves.toBe(false);
  });

  it('When the revocation has expired, Then the token is no longer reported', async () => {
    const clock = new TestClock(new Date());
    const own = await startMirror(redis.client, { clock });
    const jti = someJti();
    await createTokenBlacklist(writer.client, clock).revoke(
      jti,
      Math.floor(clock.now().getTime() / 1000) + 60,
    );
    await eventually(() => own.isRevoked(jti), 2_000);
    clock.advance(61_000);
    await expect(own.isRevoked(jti)).resolves.toBe(false);
  });
});

describe('blacklist mirror when Redis goes away', () => {
  it('When Redis goes down, Then memory answers for the stale window (a revoked token stays revoked), then checks fail (never pass); after it is back, revocations reach the mirror again', async () => {
    const server = await startPrivateRedis();
    const url = `redis://127.0.0.1:${server.port}`;
    const redis = await connectRedis(url);
    const writer = await connectRedis(url);
    const clock = new TestClock(new Date());
    const mirror = await createBlacklistMirror(redis.client, { clock, staleForMs: 10_000 });
    try {
      const revokedBefore = someJti();
      await createTokenBlacklist(writer.client).revoke(revokedBefore, inAnHour());
      await eventually(() => mirror.revokedNow(revokedBefore) === true, 2_000);
      await server.stop();
      await eventually(() => !mirror.live, 5_000);
      // within the window: from memory, without Redis
      expect(mirror.revokedNow(revokedBefore)).toBe(true);
      await expect(mirror.isRevoked(revokedBefore)).resolves.toBe(true);
      await expect(mirror.isRevoked(someJti())).resolves.toBe(false);
      // past it: no answer from memory, and Redis cannot answer either
      clock.advance(10_001);
      expect(mirror.revokedNow(revokedBefore)).toBeUndefined();
      await expect(mirror.isRevoked(revokedBefore)).rejects.toThrow();
      await expect(mirror.isRevoked(someJti())).rejects.toThrow();

      await server.start();
      await eventually(() => mirror.live, 15_000);
      await eventually(() => writer.client.isReady, 15_000);
      const jti = someJti();
      await createTokenBlacklist(writer.client).revoke(jti, inAnHour());
      await eventually(() => mirror.isRevoked(jti), 2_000);
    } finally {
      await mirror.stop();
      await redis.close();
      await writer.close();
      await server.dispose();
    }
  }, 40_000);
});
