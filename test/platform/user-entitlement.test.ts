import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { isolatedServiceEnv, natsUrl, waitFor } from '@lingua/testing';
import { type PlayStandIn, startPlayStandIn } from '../../services/subscriptions/test/support/play-stand-in';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// A user's role in identity is a copy of what subscriptions knows. It must be what ALL of the
// user's subscriptions give (one ending does not demote a user another still pays for), and the copy
// must follow subscriptions' per-user version, not the clock of whichever replica stamped an event.
jest.setTimeout(180_000);

const PACKAGE = 'com.lingua.entitlement';
const SKU = 'premium_monthly';
const DAY = 86_400_000;

let play: PlayStandIn;
let stack: InProcessStack;
let nc: NatsConnection;

beforeAll(async () => {
  play = await startPlayStandIn(PACKAGE);
  stack = await startInProcessStack(
    isolatedServiceEnv({
      SUBSCRIPTIONS_ANDROID_VERIFIER: 'google',
      GOOGLE_PLAY_API_URL: play.url,
      GOOGLE_PLAY_PACKAGE_NAME: PACKAGE,
      GOOGLE_SERVICE_ACCOUNT_KEY_FILE: play.keyFile,
      // the service's own expiry sweep, often enough for a test to wait on it
      SUBSCRIPTIONS_SWEEP_INTERVAL_MS: '300',
    }),
  );
  nc = await connect({ servers: natsUrl() });
});
afterAll(async () => {
  await nc?.close();
  await stopAndDrop(stack);
  await play?.close();
});

const gateway = gatewayCaller(() => stack.gateway.url);

async function registered() {
  const user = newCredentials('ent');
  const res = await gateway('POST', '/api/v1/auth/register', { body: user });
  expect(res.status).toBe(201);
  return { ...user, id: res.body.data.userId as string, token: res.body.data.accessToken as string };
}

const signIn = async (u: { email: string; password: string }) => {
  const res = await gateway('POST', '/api/v1/auth/login', { body: { email: u.email, password: u.password } });
  expect(res.status).toBe(200);
  return res.body.data as { accessToken: string; userRole: string; subscriptionStatus: string };
};

/** Buys on Android a purchase the Play stand-in reports as active until `expiresAt`. */
async function buy(token: string, expiresAt: number) {
  const purchaseToken = `tok-${randomUUID()}`;
  play.purchases.set(purchaseToken, {
    productId: SKU,
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: `GPA.${purchaseToken}`,
    startTime: new Date().toISOString(),
    expiryTime: new Date(expiresAt).toISOString(),
    autoRenew: true,
    acknowledged: true,
  });
  const res = await gateway('POST', '/api/v1/subscriptions/verify-receipt', {
    token,
    body: {
      platform: 'android',
      receipt_data: purchaseToken,
      transaction_id: purchaseToken,
      product_id: SKU,
    },
  });
  expect(res.status).toBe(201);
  return res.body.data.subscription_created.subscription_id as string;
}

/** Identity's consumer of subscription events has handled everything published so far. */
async function identityCaughtUp() {
  const { nats, bus } = stack.services.identity.deps;
  await waitFor(
    async () => {
      const info = await nats.jsm.consumers.info(bus.streamName, 'identity-subscription-changed');
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** The subscription as subscriptions stored it, with whether its events still wait for the relay. */
const storedSubscription = (id: string) =>
  stack.services.subscriptions.deps.mongo.connection
    .collection<{ _id: string; status: string; _outboxPending?: boolean }>('subscriptions')
    .findOne({ _id: id });

/** What a subscriptions replica publishes for a user: subscription.updated, raw on the bus. */
async function publishUpdate(
  userId: string,
  o: { userRole: 'user' | 'subscriber'; userVersion: number; timestamp: Date },
) {
  const envelope = {
    id: randomUUID(),
    event: 'subscription.updated',
    version: 1,
    timestamp: o.timestamp.toISOString(),
    data: {
      subscriptionId: randomUUID(),
      userId,
      deviceId: null,
      planId: 'premium_monthly',
      status: o.userRole === 'subscriber' ? 'active' : 'expired',
      platform: 'android',
      expiresAt: new Date(Date.now() + 30 * DAY).toISOString(),
      autoRenewal: true,
      isTrialPeriod: false,
      userRole: o.userRole,
      userSubscriptionStatus: o.userRole === 'subscriber' ? 'active' : 'inactive',
      userVersion: o.userVersion,
      change: 'renewed',
    },
  };
  const prefix = stack.services.identity.deps.bus.subjectPrefix;
  await jetstream(nc).publish(`${prefix}.subscription.updated`, JSON.stringify(envelope), {
    msgID: envelope.id,
  });
}

describe("a user's role follows all of the user's subscriptions, by version", () => {
  it('When a user cancels A within its paid period, buys B, and the expiry sweep then expires A, Then the user stays premium at the gateway (role and check-access)', async () => {
    const u = await registered();
    // A's paid period ends in 10 s (time enough to cancel it and buy B on a busy machine); B's in a month
    const a = await buy(u.token, Date.now() + 10_000);
    const cancelled = await gateway('POST', '/api/v1/subscriptions/cancel', {
      token: u.token,
      body: { cancellation_reason: 'other', immediate_cancellation: false },
    });
    expect(cancelled).toMatchObject({ status: 200, body: { success: true } });
    expect(cancelled.body.data.cancellation_processed.subscription_id).toBe(a);
    const b = await buy(u.token, Date.now() + 30 * DAY);
    expect(b).not.toBe(a);

    // the service's own sweep expires A once its paid period is over, and its event is published
    await waitFor(
      async () =>
        expect(await storedSubscription(a)).toMatchObject({ status: 'expired', _outboxPending: false }),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await identityCaughtUp();

    const session = await signIn(u);
    expect(session).toMatchObject({ userRole: 'subscriber', subscriptionStatus: 'active' });
    const access = await gateway('GET', '/api/v1/subscriptions/check-access/unlimited_dialogue', {
      token: session.accessToken,
    });
    expect(access.body.data.has_access).toBe(true);
  });

  it('When two versions of a user entitlement arrive with the same timestamp, or out of order from a replica whose clock is behind, Then identity ends in the state of the higher version', async () => {
    const sameMs = await registered();
    const skewed = await registered();
    const t = new Date();
    // same millisecond: version 1 (not premium), then version 2 (premium)
    await publishUpdate(sameMs.id, { userRole: 'user', userVersion: 1, timestamp: t });
    await publishUpdate(sameMs.id, { userRole: 'subscriber', userVersion: 2, timestamp: t });
    // out of order: version 2 (premium) from a replica 50 ms behind arrives before version 1 (demoted)
    await publishUpdate(skewed.id, {
      userRole: 'subscriber',
      userVersion: 2,
      timestamp: new Date(t.getTime() - 50),
    });
    await publishUpdate(skewed.id, { userRole: 'user', userVersion: 1, timestamp: t });
    await identityCaughtUp();

    expect((await signIn(sameMs)).userRole).toBe('subscriber');
    expect((await signIn(skewed)).userRole).toBe('subscriber');
  });
});
