import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { callerKeyEnv } from '@lingua/grpc';
import { httpCall, signTestCaller } from '@lingua/testing';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { type Harness, PRODUCT, startSubscriptions, tx } from './harness';
import { type ApplePki, makeApplePki } from './support/apple-pki';
import { storeKitTransaction } from './support/storekit.fixture';
import { type PlayStandIn, startPlayStandIn } from './support/play-stand-in';

// Production's store settings (NODE_ENV=production: real Apple and Google verifiers, no sandbox
// verifier), a TestFlight (Sandbox-signed) transaction sent by the app through the gateway.
jest.setTimeout(120_000);
const BUNDLE = 'com.lingua.test';
const TESTER = `tester-${randomBytes(4).toString('hex')}`;
let pki: ApplePki;
let play: PlayStandIn;
let h: Harness;
let gateway: RunningGateway;

beforeAll(async () => {
  pki = makeApplePki();
  play = await startPlayStandIn(BUNDLE);
  const assertionKey = randomBytes(32).toString('hex');
  h = await startSubscriptions({
    NODE_ENV: 'production',
    SUBSCRIPTIONS_ASSERTION_KEY: assertionKey,
    APPLE_ROOT_CERTS: pki.rootPemFile,
    APPLE_BUNDLE_ID: BUNDLE,
    APPLE_APP_APPLE_ID: '1234567890',
    APPLE_SANDBOX_ALLOWED_USER_IDS: `someone-else, ${TESTER}`,
    // production requires its gRPC callers' public keys (docs/adr/0018)
    ...callerKeyEnv(),
    GOOGLE_PLAY_API_URL: play.url,
    GOOGLE_PLAY_PACKAGE_NAME: BUNDLE,
    GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
  });
  gateway = await startGateway(
    loadGatewayConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      GATEWAY_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      SHUTDOWN_GRACE_MS: '1000', // as isolatedServiceEnv: a stop does not wait out idle keep-alive connections
      RATE_LIMIT_PREFIX: `${TESTER}-rl`,
      SUBSCRIPTIONS_ASSERTION_KEY: assertionKey,
      SUBSCRIPTIONS_HTTP_URL: h.service.httpUrl,
    }),
    { logger: h.service.deps.logger },
  );
});
afterAll(async () => {
  await gateway?.stop();
  await h?.stop();
  await play?.close();
  pki?.cleanup();
});

/** A StoreKit 2 transaction as the App Store signs it for a TestFlight build (environment Sandbox). */
const sandboxTransaction = (original: string) =>
  storeKitTransaction({ bundleId: BUNDLE, original, start: h.clock.now().getTime() });

/** The app's access token for the user (the gateway verifies it and adds the assertion itself). */
const bearerOf = (sub: string) =>
  signTestCaller({ audience: 'subscriptions', key: h.config.assertionKey }, { sub, role: 'user' }).token;

async function verifyThroughGateway(userId: string) {
  const token = bearerOf(userId);
  const original = tx();
  return httpCall(gateway.url, 'POST', '/api/v1/subscriptions/verify-receipt', {
    headers: { authorization: `Bearer ${token}` },
    body: {
      platform: 'ios',
      receipt_data: await pki.sign(sandboxTransaction(original)),
      transaction_id: original,
      product_id: PRODUCT,
    },
  });
}

describe('App Store Sandbox purchases in production', () => {
  it('When an account that is not allow-listed sends a Sandbox transaction, Then it is refused with RECEIPT_INVALID / sandbox_not_allowed and no subscription exists', async () => {
    const userId = `buyer-${randomBytes(4).toString('hex')}`;
    const res = await verifyThroughGateway(userId);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'RECEIPT_INVALID',
      details: { reason: 'sandbox_not_allowed' },
    });
    const token = bearerOf(userId);
    const status = await httpCall(gateway.url, 'GET', '/api/v1/subscriptions/status', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(status.status).toBe(200);
    expect(JSON.stringify(status.body.data)).not.toMatch(/"active"/);
  });

  it('When an allow-listed tester sends a Sandbox transaction, Then it is accepted', async () => {
    const res = await verifyThroughGateway(TESTER);
    expect(res.status).toBe(201);
    expect(res.body.data.receipt_validation).toMatchObject({ is_valid: true, platform: 'ios' });
  });
});

describe('APPLE_APP_APPLE_ID in production', () => {
  it('When production runs the apple verifier without APPLE_APP_APPLE_ID, Then the service exits 1 naming the variable', () => {
    const run = spawnSync(process.execPath, [path.resolve(__dirname, '../dist/main.js')], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        SUBSCRIPTIONS_ASSERTION_KEY: randomBytes(32).toString('hex'),
        APPLE_ROOT_CERTS: pki.rootPemFile,
        GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /APPLE_APP_APPLE_ID: .*required with the apple verifier when NODE_ENV=production/,
    );
  });
});
