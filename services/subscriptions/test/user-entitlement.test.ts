import { randomUUID } from 'node:crypto';
import { TestClock } from '@lingua/testing';
import { entitlementVersions } from '../src/data-access/entitlement-versions.repository';
import { subscriptionRepository } from '../src/data-access/subscription.repository';
import { expireSubscriptions } from '../src/domain/expire-subscriptions.use-case';
import type { SubscriptionStore } from '../src/domain/ports';
import { subscriptionCreated } from '../src/domain/subscription';
import { userEntitlements } from '../src/domain/user-entitlement';
import { type Harness, sandboxReceipt, startSubscriptions } from './harness';

// What subscriptions tells identity about a user: the role ALL of the user's subscriptions give,
// with the user's entitlement version (ADR 0020). Here at the bus, as identity receives it.
jest.setTimeout(120_000);
const BASE = '/api/v1/subscriptions';
const DAY = 86_400_000;

let h: Harness;
beforeAll(async () => {
  h = await startSubscriptions();
});
afterAll(async () => {
  await h?.stop();
});

interface EntitlementData {
  subscriptionId: string;
  userId: string | null;
  userRole: string;
  userSubscriptionStatus: string;
  userVersion?: number;
  change?: string;
}
const eventsOfUser = (userId: string) =>
  h.events
    .map((e) => e.data as unknown as EntitlementData)
    .filter((d) => d.userId === userId && 'userRole' in d);

async function subscribe(user: { auth: Record<string, string> }) {
  const res = await h.post(`${BASE}/verify-receipt`, sandboxReceipt('valid'), user.auth);
  expect(res.status).toBe(201);
  return res.body.data.subscription_created.subscription_id as string;
}

/** A cancelled within its paid period, then B bought 20 days later: B ends 20 days after A. */
async function cancelledAThenB() {
  const user = h.user();
  const a = await subscribe(user);
  h.clock.advance(20 * DAY);
  const cancel = await h.post(
    `${BASE}/cancel`,
    { cancellation_reason: 'other', immediate_cancellation: false },
    user.auth,
  );
  expect(cancel.status).toBe(200);
  const b = await subscribe(user);
  return { user, a, b };
}

describe('the entitlement subscriptions announces to identity', () => {
  it("When A (cancelled within its period) expires after B was bought, Then A's event says subscriber, with the user's highest version", async () => {
    const { user, a } = await cancelledAThenB();
    // A's paid period is over, B's runs 20 more days: the service's sweep expires A
    h.clock.advance(11 * DAY);
    await h.sweepsSettled();
    await h.eventsSettled();
    const events = eventsOfUser(user.id);
    const expiredA = events.find((d) => d.subscriptionId === a && d.change === 'expired');
    expect(expiredA).toMatchObject({ userRole: 'subscriber', userSubscriptionStatus: 'active' });
    const versions = events.map((d) => d.userVersion ?? 0);
    expect(new Set(versions).size).toBe(versions.length);
    expect(expiredA!.userVersion).toBe(Math.max(...versions));
  });

  it('When the last announced entitlement is wrong (a writer died between its write and its overlap check), Then the sweep announces the truth with a higher version, once', async () => {
    const { user, a } = await cancelledAThenB();
    await h.eventsSettled();
    // the state two overlapping writers leave when the one that would correct it was killed: the
    // highest version announced says the user lost premium, while B still gives it
    const db = h.service.deps.mongo.connection;
    await db
      .collection<{ _id: string }>('subscriptions')
      .updateOne(
        { _id: a },
        { $set: { announced: { userRole: 'user', userSubscriptionStatus: 'inactive', version: 99 } } },
      );
    await db
      .collection<{ _id: string; version: number }>('user_entitlement_versions')
      .updateOne({ _id: user.id }, { $set: { version: 99 } });

    await h.sweepsSettled();
    await h.eventsSettled();
    const resyncs = () => eventsOfUser(user.id).filter((d) => d.change === 'entitlement_resync');
    expect(resyncs()).toEqual([expect.objectContaining({ userRole: 'subscriber', userVersion: 100 })]);
    // the truth is announced now: later sweeps leave it alone
    await h.sweepsSettled();
    await h.eventsSettled();
    expect(resyncs()).toHaveLength(1);
  });

  it('When buying B and the sweep expiring A overlap (each reads before the other writes), Then the buyer notices and re-announces: the highest version says premium', async () => {
    const user = h.user();
    const a = await subscribe(user);
    const connection = h.service.deps.mongo.connection;
    const repository = subscriptionRepository(connection);
    const subA = (await repository.findById(a))!;
    // the real repository, with B's buyer held right after it read the user's subscriptions
    let holdNextRead = false;
    let release!: () => void;
    let readDone!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const heldAtRead = new Promise<void>((r) => (readDone = r));
    const holding: SubscriptionStore = {
      ...repository,
      async listFor(owner, filter, cap) {
        const found = await repository.listFor(owner, filter, cap);
        if (holdNextRead) {
          holdNextRead = false;
          readDone();
          await released;
        }
        return found;
      },
    };
    // a moment after A's paid period (the service's own clock stays before it)
    const clock = new TestClock(new Date(subA.expiresAt.getTime() + 1_000));
    const now = clock.now();
    const { store } = userEntitlements(holding, { versions: entitlementVersions(connection), clock });
    const b = {
      ...subA,
      id: randomUUID(),
      storeKey: `sandbox:${randomUUID()}`,
      originalTransactionId: randomUUID(),
      status: 'active' as const,
      activatedAt: now,
      expiresAt: new Date(now.getTime() + 30 * DAY),
      cancelledAt: null,
      announced: null,
      updatedAt: now,
    };

    holdNextRead = true;
    const buying = store.insert(b, [subscriptionCreated(b, now)]); // saw A still active: premium
    await heldAtRead;
    // the sweep, meanwhile, does not see B yet: A's expiry says "user", with the higher version
    await expireSubscriptions({ subscriptions: store, clock, eventsStaged: () => undefined });
    expect((await repository.findById(a))?.status).toBe('expired');
    release();
    expect(await buying).toBe(true);

    const announced = (await repository.listFor({ userId: user.id }, {}, 10)).map((s) => s.announced!);
    const last = announced.reduce((x, y) => (y.version > x.version ? y : x));
    expect(last).toMatchObject({ userRole: 'subscriber', userSubscriptionStatus: 'active' });
    expect(last.version).toBe(Math.max(...announced.map((x) => x.version)));
  });
});
