import { redisUrl, uniqueName } from '@lingua/testing';
import { connectRedis } from './connect';

describe('connectRedis', () => {
  it('When connected to the local Redis, Then ping succeeds and keys round-trip with expiry', async () => {
    const redis = await connectRedis(redisUrl());
    try {
      await redis.ping();
      const key = uniqueName('redis_lib');
      await redis.client.set(key, 'v', { expiration: { type: 'EX', value: 60 } });
      expect(await redis.client.get(key)).toBe('v');
      expect(await redis.client.ttl(key)).toBeGreaterThan(0);
      await redis.client.del(key);
    } finally {
      await redis.close();
    }
  });

  it('When nothing listens at the URL, Then connecting fails instead of hanging', async () => {
    await expect(connectRedis('redis://127.0.0.1:1')).rejects.toThrow();
  });
});
