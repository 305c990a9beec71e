import { devCallSigner } from '@lingua/grpc';
import { freePort, waitFor } from '@lingua/testing';
import { entitlementsClient } from '../src/data-access/entitlements.client';
import { startEntitlementsStandIn } from './support';

describe('entitlements from the subscriptions service', () => {
  it('When a user is premium, Then the answer is cached for the cache time and asked again after it', async () => {
    const standIn = await startEntitlementsStandIn();
    let now = 1_000_000;
    const client = entitlementsClient({
      address: standIn.address,
      cacheMs: 30_000,
      now: () => now,
      signer: devCallSigner('ai'),
    });
    try {
      standIn.premium.add('u-premium');
      expect(await client.forUser('u-premium')).toEqual({ isPremium: true, verified: true });
      expect(await client.forUser('u-free')).toEqual({ isPremium: false, verified: true });
      standIn.premium.delete('u-premium');
      now += 29_000;
      expect(await client.forUser('u-premium')).toEqual({ isPremium: true, verified: true }); // cached
      expect(standIn.state.calls).toBe(2);
      now += 2_000;
      expect(await client.forUser('u-premium')).toEqual({ isPremium: false, verified: true }); // asked again
      expect(standIn.state.calls).toBe(3);
    } finally {
      client.close();
      await standIn.stop();
    }
  });

  it('When the subscriptions service is down, Then the user is treated as free, briefly, and recovery is noticed', async () => {
    const port = await freePort();
    let now = 1_000_000;
    const client = entitlementsClient({
      address: `127.0.0.1:${port}`,
      cacheMs: 30_000,
      now: () => now,
      deadlineMs: 300,
      signer: devCallSigner('ai'),
    });
    try {
      expect(await client.forUser('u1')).toEqual({ isPremium: false, verified: false });
      const standIn = await startEntitlementsStandIn(port);
      standIn.premium.add('u1');
      try {
        // failures are cached 5 s at most (not the full 30 s): once it is back, the next ask sees it
        await waitFor(async () => {
          now += 5_001;
          expect(await client.forUser('u1')).toEqual({ isPremium: true, verified: true });
        });
      } finally {
        await standIn.stop();
      }
    } finally {
      client.close();
    }
  });
});
