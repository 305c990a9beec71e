import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { registry } from '@lingua/metrics';
import { isolatedServiceEnv, natsUrl, waitFor } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// The whole stack in this process over the real FerretDB, NATS and Redis. A compromised pod is
// played by a bare NATS connection that publishes the event envelope by hand on the bus's subject:
// no @lingua/events helper, no schema check on the way in.
jest.setTimeout(120_000);
let stack: InProcessStack;
let nc: NatsConnection;
let prefix: string;

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv());
  prefix = stack.services.identity.deps.bus.subjectPrefix;
  nc = await connect({ servers: natsUrl() });
});
afterAll(async () => {
  await nc?.close();
  await stopAndDrop(stack);
});

const gateway = gatewayCaller(() => stack.gateway.url);
const call = (method: string, path: string, body?: unknown, token?: string) =>
  gateway(method, path, { body, ...(token && { token }) });

async function registeredUser() {
  const user = newCredentials('f');
  const res = await call('POST', '/api/v1/auth/register', user);
  expect(res.status).toBe(201);
  return { ...user, id: res.body.data.userId as string };
}

/** Signs in until the role the events decided shows (they are applied asynchronously). */
const signedInAs = (u: { email: string; password: string }, role: string) =>
  waitFor(
    async () => {
      const s = await signIn(u);
      expect(s.userRole).toBe(role);
      return s;
    },
    { timeoutMs: 30_000, intervalMs: 300 },
  );

const signIn = async (u: { email: string; password: string }) => {
  const res = await call('POST', '/api/v1/auth/login', { email: u.email, password: u.password });
  expect(res.status).toBe(200);
  return res.body.data as { accessToken: string; userRole: string };
};
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());

/** What a pod with bus access can send: the envelope, published raw on the event's subject. */
async function publishRaw(
  userId: string,
  o: { userRole: string; status: 'active' | 'inactive'; timestamp: Date },
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
      status: o.status === 'active' ? 'active' : 'expired',
      platform: 'ios',
      expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      autoRenewal: true,
      isTrialPeriod: false,
      userRole: o.userRole,
      userSubscriptionStatus: o.status,
      change: 'renewed',
    },
  };
  await jetstream(nc).publish(`${prefix}.subscription.updated`, JSON.stringify(envelope), {
    msgID: envelope.id,
  });
  return envelope.id;
}

const refusedFuture = async () =>
  (await registry.getSingleMetric('lingua_events_consumed_total')?.get())?.values
    .filter((v) => v.labels.service === 'identity' && v.labels.outcome === 'refused_future_timestamp')
    .reduce((n, v) => n + v.value, 0) ?? 0;

describe('forged events on the bus', () => {
  it('When a pod publishes subscription.updated with userRole admin, Then sign-in stays non-admin and the admin API answers 403', async () => {
    const u = await registeredUser();
    await publishRaw(u.id, { userRole: 'admin', status: 'active', timestamp: new Date() });
    // a later, legitimate-looking change about the same user: once it shows, the forged one was decided
    await publishRaw(u.id, {
      userRole: 'subscriber',
      status: 'active',
      timestamp: new Date(Date.now() + 1_000),
    });
    const session = await signedInAs(u, 'subscriber');
    expect(claimsOf(session.accessToken).role).toBe('subscriber');
    const admin = await call('GET', '/api/v1/admin/subscriptions', undefined, session.accessToken);
    expect(admin.status).toBe(403);
  });

  it('When an event stamped in 2099 arrives, Then it is refused and counted, and a later legitimate event still applies', async () => {
    const u = await registeredUser();
    const before = await refusedFuture();
    await publishRaw(u.id, {
      userRole: 'user',
      status: 'inactive',
      timestamp: new Date('2099-01-01T00:00:00Z'),
    });
    await publishRaw(u.id, { userRole: 'subscriber', status: 'active', timestamp: new Date() });
    const session = await signedInAs(u, 'subscriber');
    expect(claimsOf(session.accessToken)).toMatchObject({ role: 'subscriber' });
    await waitFor(async () => expect(await refusedFuture()).toBeGreaterThan(before));
  });
});
