import { devCallSigner } from '@lingua/grpc';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { freePort, redisUrl, uniqueName, waitFor } from '@lingua/testing';
import {
  entitlementKey,
  entitlementsClient,
  forgetEntitlements,
} from '../src/data-access/entitlements.client';
import { startEntitlementsStandIn } from './support';

let redis: RedisHandle;
beforeAll(async () => {
  redis = await connectRedis(redisUrl());
});
afterAll(async () => {
  await redis?.close();
});

describe('entitlements from the subscriptions service', () => {
  it('When a user is premium, Then the answer is shared through Redis for the cache time, asked again after it, and ended at once by a forget', async () => {
    const standIn = await startEntitlementsStandIn();
    const [premium, free] = [uniqueName('u-premium'), uniqueName('u-free')];
    // two replicas: what one asked, the other reads from the shared cache
    const replicas = [1, 2].map(() =>
      entitlementsClient({
        address: standIn.address,
        cacheMs: 1_500,
        now: () => Date.now(),
        redis: redis.client,
        signer: devCallSigner('ai'),
      }),
    );
    const [one, two] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    try {
      standIn.premium.add(premium);
      expect(await one.forUser(premium)).toEqual({ isPremium: true, verified: true });
      expect(await one.forUser(free)).toEqual({ isPremium: false, verified: true });
      standIn.premium.delete(premium);
      expect(await two.forUser(premium)).toEqual({ isPremium: true, verified: true }); // cached
      expect(standIn.state.calls).toBe(2);
      // the cache time passes: asked again
      await waitFor(async () =>
        expect(await two.forUser(premium)).toEqual({ isPremium: false, verified: true }),
      );
      expect(standIn.state.calls).toBe(3);

      // a subscription event: the cached answer ends for every replica at once
      standIn.premium.add(premium);
      await forgetEntitlements(redis.client)(premium);
      expect(await one.forUser(premium)).toEqual({ isPremium: true, verified: true });
      expect(standIn.state.calls).toBe(4);
    } finally {
      for (const r of replicas) r.close();
      await redis.client.del([entitlementKey(premium), entitlementKey(free)]);
      await standIn.stop();
    }
  });

  it('When the subscriptions service is down, Then the user is treated as free, briefly, and recovery is noticed', async () => {
    const port = await freePort();
    let now = 1_000_000;
    const user = uniqueName('u1');
    const client = entitlementsClient({
      address: `127.0.0.1:${port}`,
      cacheMs: 30_000,
      now: () => now,
      redis: redis.client,
      deadlineMs: 300,
      signer: devCallSigner('ai'),
    });
    try {
      expect(await client.forUser(user)).toEqual({ isPremium: false, verified: false });
      expect(await redis.client.exists(entitlementKey(user))).toBe(0); // a failure is not shared
      const standIn = await startEntitlementsStandIn(port);
      standIn.premium.add(user);
      try {
        // failures are remembered 5 s at most (not the full 30 s): once it is back, the next ask sees it
        await waitFor(async () => {
          now += 5_001;
          expect(await client.forUser(user)).toEqual({ isPremium: true, verified: true });
        });
      } finally {
        await standIn.stop();
      }
    } finally {
      client.close();
      await redis.client.del(entitlementKey(user));
    }
  });
});
