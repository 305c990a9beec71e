import { randomUUID } from 'node:crypto';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { redisUrl, waitFor } from '@lingua/testing';
import { systemClock } from './clock';
import { mirroredBlacklist } from './mirrored-blacklist';
import { createTokenBlacklist } from './token-blacklist';

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const quiet = { warn: () => undefined };

describe('mirrored blacklist (a service checking every request)', () => {
  let redis: RedisHandle;
  let writer: RedisHandle;
  beforeAll(async () => {
    redis = await connectRedis(redisUrl());
    writer = await connectRedis(redisUrl()); // another process's client (the identity service)
  });
  afterAll(async () => {
    await redis.close();
    await writer.close();
  });

  it('When a jti is revoked elsewhere or through it, Then it reports it revoked, and other tokens not', async () => {
    const blacklist = mirroredBlacklist(redis.client, systemClock, quiet);
    try {
      const elsewhere = randomUUID();
      await createTokenBlacklist(writer.client).revoke(elsewhere, inAnHour());
      await waitFor(async () => expect(await blacklist.isRevoked(elsewhere)).toBe(true));
      const here = randomUUID();
      await blacklist.revoke(here, inAnHour());
      await waitFor(async () => expect(await blacklist.isRevoked(here)).toBe(true));
      expect(await blacklist.isRevoked(randomUUID())).toBe(false);
    } finally {
      await blacklist.stop();
    }
  });

  it('When it is stopped before its mirror is up, Then stop() still returns', async () => {
    const blacklist = mirroredBlacklist(redis.client, systemClock, quiet);
    await blacklist.stop();
  });
});
