import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { type Harness, sandboxReceipt, startSubscriptions } from './harness';

jest.setTimeout(60_000);
let h: Harness;
let client: ReturnType<typeof entitlementsClient>;

const entitlementsClient = (address: string) =>
  createGrpcClient(loadPackage().lingua.subscriptions.v1.EntitlementsService, address, {
    // no service calls CheckFeatureAccess yet: only an operator may
    signer: devCallSigner('operator'),
  });

beforeAll(async () => {
  h = await startSubscriptions();
  client = entitlementsClient(h.service.grpcAddress!);
});
afterAll(async () => {
  client?.close();
  await h?.stop();
});

describe('CheckFeatureAccess fails closed', () => {
  it.each([
    ['an unknown', 'free_lunch'],
    ['an empty', ''],
  ])('When %s feature id is asked about, Then INVALID_ARGUMENT, never access', async (_kind, featureId) => {
    const subscriber = h.user();
    await h.post('/api/v1/subscriptions/verify-receipt', sandboxReceipt('valid'), subscriber.auth);
    for (const userId of [subscriber.id, h.user().id]) {
      const call = client.call('CheckFeatureAccess', {
        user_id: userId,
        device_id: '',
        feature_id: featureId,
      });
      await expect(call).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        cause: { code: 3 }, // INVALID_ARGUMENT on the wire
      });
    }
  });

  it('When a free feature and a premium one are asked about for a free user, Then only the free one opens', async () => {
    const free = h.user().id;
    const ask = (feature_id: string) =>
      client.call('CheckFeatureAccess', { user_id: free, device_id: '', feature_id });
    expect(await ask('spaced_repetition')).toMatchObject({ has_access: true, access_reason: 'free_feature' });
    expect(await ask('advanced_scenarios')).toMatchObject({
      has_access: false,
      access_reason: 'subscription_required',
    });
  });
});
