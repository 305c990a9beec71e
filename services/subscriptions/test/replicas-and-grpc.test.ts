import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { DAY, type Harness, sandboxReceipt, startSubscriptions, until } from './harness';

// generous: the machine is shared and tests wait for the sweep and events
jest.setTimeout(120_000);
let a: Harness;
let b: Harness;

beforeAll(async () => {
  a = await startSubscriptions();
  b = await startSubscriptions({}, { config: a.config, clock: a.clock });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

describe('two replicas', () => {
  it('When both replicas sweep an ended period, Then it expires once and one event is emitted', async () => {
    const start = a.clock.now().getTime();
    const users = [a.user(), a.user(), a.user()];
    const ids: string[] = [];
    for (const user of users) {
      const res = await a.post('/api/v1/subscriptions/verify-receipt', sandboxReceipt('valid'), user.auth);
      ids.push(res.body.data.subscription_created.subscription_id);
    }
    await until(() => ids.every((id) => a.eventsFor(id).length === 1));
    try {
      a.clock.advance(31 * DAY);
      await until(() =>
        ids.every((id) => a.eventsFor(id).some((e) => (e.data as { change?: string }).change === 'expired')),
      );
      // a whole sweep of each replica ran after the expiries and its events were published, and a
      // marker published after them was recorded: a duplicate expiry would be recorded by now
      await Promise.all([a.sweepsSettled(), b.sweepsSettled()]);
      await a.eventsSettled();
      for (const id of ids)
        expect(
          a.eventsFor(id).filter((e) => (e.data as { change?: string }).change === 'expired'),
        ).toHaveLength(1);
      const status = await b.get('/api/v1/subscriptions/status', users[0]!.auth);
      expect(status.body.data.subscription_status.status).toBe('expired');
    } finally {
      a.clock.advance(start - a.clock.now().getTime());
    }
  });

  it('When the same purchase reaches both replicas at once, Then one subscription is created', async () => {
    const user = a.user();
    const body = sandboxReceipt('valid');
    const replies = await Promise.all([
      a.post('/api/v1/subscriptions/verify-receipt', body, user.auth),
      b.post('/api/v1/subscriptions/verify-receipt', body, user.auth),
    ]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(new Set(replies.map((r) => r.body.data.subscription_created.subscription_id)).size).toBe(1);
  });
});

describe('EntitlementsService over gRPC', () => {
  it('When another service asks about a subscriber and a free user, Then premium features follow the subscription', async () => {
    const subscriber = a.user();
    await a.post('/api/v1/subscriptions/verify-receipt', sandboxReceipt('trial'), subscriber.auth);
    // as ai, the one service that calls GetEntitlements; CheckFeatureAccess has no caller yet but operators
    const client = createGrpcClient(
      loadPackage().lingua.subscriptions.v1.EntitlementsService,
      a.service.grpcAddress!,
      { signer: devCallSigner('ai') },
    );
    const operator = createGrpcClient(
      loadPackage().lingua.subscriptions.v1.EntitlementsService,
      a.service.grpcAddress!,
      { signer: devCallSigner('operator') },
    );
    try {
      const premium = await client.call('GetEntitlements', { user_id: subscriber.id, device_id: '' });
      expect(premium).toMatchObject({ is_premium: true, subscription_status: 'active' });
      expect(premium.features).toContain('detailed_analysis');
      const check = await operator.call('CheckFeatureAccess', {
        user_id: subscriber.id,
        device_id: '',
        feature_id: 'detailed_analysis',
      });
      expect(check).toMatchObject({ has_access: true, access_reason: 'active_subscription' });
      const free = await operator.call('CheckFeatureAccess', {
        user_id: a.user().id,
        device_id: '',
        feature_id: 'detailed_analysis',
      });
      expect(free).toMatchObject({
        has_access: false,
        access_reason: 'subscription_required',
        current_status: 'none',
      });
    } finally {
      client.close();
      operator.close();
    }
  });
});
