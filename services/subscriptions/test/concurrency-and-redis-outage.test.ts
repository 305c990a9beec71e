import { startPrivateRedis } from '@lingua/testing';
import { subscriptionRepository } from '../src/data-access/subscription.repository';
import type { Payment } from '../src/domain/subscription';
import { DAY, type Harness, sandboxReceipt, startSubscriptions, until } from './harness';

// generous: the machine is shared and the outage test waits for the expiry sweep
jest.setTimeout(120_000);

// No Redis lock: a subscription changes by optimistic concurrency on the database alone (read,
// decide, write if still at the version read, else decide again), see libs/mongo/README.md.
let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
let h: Harness;

beforeAll(async () => {
  redis = await startPrivateRedis();
  h = await startSubscriptions({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await redis?.dispose();
});

async function subscribe() {
  const user = h.user();
  const res = await h.post('/api/v1/subscriptions/verify-receipt', sandboxReceipt('valid'), user.auth);
  expect(res.status).toBe(201);
  const id = res.body.data.subscription_created.subscription_id as string;
  await until(() => h.eventsFor(id).length === 1);
  return { user, id };
}

describe('subscription writes under concurrency', () => {
  it('When many changes of one subscription race, Then every one is applied to the state it read and none is lost', async () => {
    const { id } = await subscribe();
    const store = subscriptionRepository(h.service.deps.mongo.connection);
    const before = (await store.findById(id))!;
    const racers = 10;
    const payment = (i: number): Payment => ({
      transactionId: `race-${i}`,
      amount: 1,
      currency: 'USD',
      at: h.clock.now(),
    });
    // each decision appends to what it read: a read-modify-write without the version check keeps
    // only some of the payments (the last writer overwrites the others' lists)
    await Promise.all(
      Array.from({ length: racers }, (_, i) =>
        store.mutate(id, (current) => ({
          next: { ...current, payments: [...current.payments, payment(i)] },
          events: [],
        })),
      ),
    );
    const after = (await store.findById(id))!;
    expect(after.payments).toHaveLength(before.payments.length + racers);
    expect(
      after.payments
        .map((p) => p.transactionId)
        .filter((t) => t.startsWith('race-'))
        .sort(),
    ).toEqual(Array.from({ length: racers }, (_, i) => `race-${i}`).sort());
    const stored = await h.service.deps.mongo.connection
      .collection('subscriptions')
      .findOne({ _id: id as never }, { projection: { _v: 1 } });
    expect(stored?._v).toBeGreaterThanOrEqual(racers + 1);
  });
});

describe('subscriptions while its Redis is down', () => {
  // Redis is the source of truth for the blacklist and the usage quotas only: requests that need
  // those fail; a subscription write (here the expiry sweep) needs no Redis and goes on
  it('When Redis is down, Then a period that ended still expires and its event is published', async () => {
    const { id } = await subscribe();
    await redis.stop();
    try {
      h.clock.advance(31 * DAY);
      await until(() => h.eventsFor(id).some((e) => (e.data as { change?: string }).change === 'expired'));
    } finally {
      await redis.start();
    }
  });
});
