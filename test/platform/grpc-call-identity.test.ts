import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { DEV_JWT_SECRET } from '@lingua/auth';
import { type RunningService, startService } from '@lingua/bootstrap';
import { devSigningKey } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { httpCall, isolatedServiceEnv, signTestToken } from '@lingua/testing';
import { loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import { loadServiceConfig as aiConfig } from '../../services/ai/src/config';
import { defineAiService } from '../../services/ai/src/start';
import { loadServiceConfig as subscriptionsConfig } from '../../services/subscriptions/src/config';
import { defineSubscriptionsService } from '../../services/subscriptions/src/start';

// docs/adr/0018-grpc-call-identity.md, where the attacker stands: a compromised pod on the cluster
// network reaches subscriptions' real gRPC port. It speaks plain grpc-js with the repository's
// protos and builds its metadata by hand. The legitimate path is the real one: a client asks the
// gateway for its AI quota, ai asks subscriptions over gRPC whether the user is premium.
jest.setTimeout(120_000);

const { EntitlementsService } = loadPackage().lingua.subscriptions.v1;
let subscriptions: RunningService;
let ai: RunningService;
let gateway: RunningGateway;

beforeAll(async () => {
  const env = isolatedServiceEnv();
  subscriptions = await startService(defineSubscriptionsService(subscriptionsConfig(env)));
  ai = await startService(
    defineAiService(aiConfig({ ...env, SUBSCRIPTIONS_ADDR: subscriptions.grpcAddress! })),
  );
  gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      SUBSCRIPTIONS_HTTP_URL: subscriptions.httpUrl,
      AI_HTTP_URL: ai.httpUrl,
    }),
    { logger: subscriptions.deps.logger },
  );
});
afterAll(async () => {
  await gateway?.stop();
  for (const s of [ai, subscriptions]) {
    await s?.stop();
    await s?.deps.mongo.connection.dropDatabase().catch(() => undefined);
  }
});

/** An assertion `{iss, aud, exp}` signed by hand with whatever key the attacker holds. */
function assertion(key: KeyObject, claims: { iss: string; aud: string }): string {
  const exp = Math.floor(Date.now() / 1000) + 60;
  const payload = Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url');
  return `v1.${payload}.${sign(null, Buffer.from(`v1.${payload}`), key).toString('base64url')}`;
}

/** One call on the port with plain grpc-js; resolves to the reply or the error. */
function call(
  method: 'GetEntitlements' | 'CheckFeatureAccess',
  request: object,
  callAssertion?: string,
): Promise<ServiceError | { is_premium?: boolean }> {
  const client = new EntitlementsService(subscriptions.grpcAddress!, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('x-user-id', 'anyone'); // what ADR 0001 trusted by network position alone
  if (callAssertion !== undefined) metadata.set('x-lingua-call', callAssertion);
  return new Promise((resolve) =>
    client[method](
      request,
      metadata,
      { deadline: Date.now() + 5_000 },
      (err: ServiceError | null, reply: object) => {
        client.close();
        resolve(err ?? reply);
      },
    ),
  );
}

async function subscriber(): Promise<string> {
  const user = signTestToken(DEV_JWT_SECRET);
  const id = `tx${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const res = await httpCall(gateway.url, 'POST', '/api/v1/subscriptions/verify-receipt', {
    headers: user.headers,
    body: {
      platform: 'ios',
      receipt_data: `sandbox_valid_${id}`,
      transaction_id: id,
      product_id: 'premium_monthly',
    },
  });
  expect([200, 201]).toContain(res.status);
  return user.sub;
}

describe('a compromised pod on the cluster network, at subscriptions’ gRPC port', () => {
  const question = (userId: string) => ({ user_id: userId, device_id: '' });

  it('When it calls without a call assertion, Then it is refused UNAUTHENTICATED', async () => {
    const userId = await subscriber();
    expect(await call('GetEntitlements', question(userId))).toMatchObject({ code: status.UNAUTHENTICATED });
  });

  it('When it signs an assertion as ai with a key it made up, Then it is refused UNAUTHENTICATED', async () => {
    const invented = generateKeyPairSync('ed25519').privateKey;
    const forged = assertion(invented, { iss: 'ai', aud: 'subscriptions' });
    expect(await call('GetEntitlements', question('u1'), forged)).toMatchObject({
      code: status.UNAUTHENTICATED,
    });
  });

  it('When it holds a real service key but not one the method allows, Then it is refused PERMISSION_DENIED', async () => {
    // a compromised identity pod: identity's own key, but identity never asks for entitlements
    const asIdentity = assertion(devSigningKey('identity'), { iss: 'identity', aud: 'subscriptions' });
    expect(await call('GetEntitlements', question('u1'), asIdentity)).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    // a compromised ai pod: allowed GetEntitlements, not CheckFeatureAccess (no service calls it)
    const asAi = assertion(devSigningKey('ai'), { iss: 'ai', aud: 'subscriptions' });
    expect(
      await call('CheckFeatureAccess', { ...question('u1'), feature_id: 'detailed_analysis' }, asAi),
    ).toMatchObject({ code: status.PERMISSION_DENIED });
    // nor can ai's assertion for another server be replayed here
    const elsewhere = assertion(devSigningKey('ai'), { iss: 'ai', aud: 'flashcards' });
    expect(await call('GetEntitlements', question('u1'), elsewhere)).toMatchObject({
      code: status.UNAUTHENTICATED,
    });
  });

  it('When a probe asks the standard health service, Then it answers without any assertion', async () => {
    const health = new (loadPackage().grpc.health.v1.Health)(
      subscriptions.grpcAddress!,
      credentials.createInsecure(),
    );
    const reply = await new Promise((resolve, reject) =>
      health.Check({ service: '' }, { deadline: Date.now() + 5_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    ).finally(() => health.close());
    expect(reply).toMatchObject({ status: 'SERVING' });
  });
});

describe('the legitimate caller', () => {
  it('When a subscriber asks the gateway for the AI quota, Then ai’s signed gRPC call to subscriptions finds the premium', async () => {
    const userId = await subscriber();
    const token = signTestToken(DEV_JWT_SECRET, { sub: userId });
    const quota = await httpCall(gateway.url, 'GET', '/api/ai/quota', { headers: token.headers });
    expect(quota.status).toBe(200);
    // a refused call would read as a free user (ai's safe side), so premium proves the call passed
    expect(quota.body.data).toMatchObject({ isPremium: true });
  });
});
