import { connectMongo, type MongoHandle } from '@lingua/mongo';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { mongoUrl, redisUrl, uniqueName } from '@lingua/testing';
import { cachedEndpointStore } from '../src/data-access/endpoint-cache';
import { webhookEndpointRepository } from '../src/data-access/webhook-endpoint.repository';
import type { WebhookEndpoint } from '../src/domain/webhook';

// Two replicas' caches over one database and one Redis: what one changes, the other sees at once.
let mongo: MongoHandle;
let redis: RedisHandle;
const versionKey = `notifications:${uniqueName('cache')}:webhook-endpoints:version`;

beforeAll(async () => {
  mongo = await connectMongo(mongoUrl(), uniqueName('notif_cache'));
  redis = await connectRedis(redisUrl());
});
afterAll(async () => {
  await redis.client.del(versionKey);
  await redis.close();
  await mongo.connection.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const replica = () => {
  const repository = webhookEndpointRepository(mongo.connection);
  let queries = 0;
  const counted = {
    ...repository,
    listEnabled: () => {
      queries++;
      return repository.listEnabled();
    },
  };
  return { store: cachedEndpointStore(counted, redis.client, versionKey), queries: () => queries };
};

const endpoint = (ownerId: string, over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: uniqueName('ep'),
  ownerId,
  url: 'https://example.com/hook',
  description: '',
  events: ['user.created'],
  scope: 'own',
  secrets: [{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', createdAt: new Date(), expiresAt: null }],
  enabled: true,
  disabledReason: null,
  consecutiveFailures: 0,
  circuitOpenUntil: null,
  failingSince: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...over,
});

const ids = (endpoints: WebhookEndpoint[]) => endpoints.map((e) => e.id).sort();

describe('endpoint cache across replicas', () => {
  it('When nothing changed, Then repeated fan-outs read the database once', async () => {
    const a = replica();
    const mine = endpoint('u-1');
    await a.store.insert(mine);
    expect(ids(await a.store.subscribers('user.created', 'u-1'))).toEqual([mine.id]);
    expect(ids(await a.store.subscribers('user.created', 'u-2'))).toEqual([]);
    await a.store.subscribers('user.created', 'u-1');
    expect(a.queries()).toBe(1);
  });

  it('When another replica changes, disables, deletes or adds an endpoint, Then the next fan-out here sees it', async () => {
    const a = replica();
    const b = replica();
    const owner = uniqueName('u');
    const first = endpoint(owner);
    await b.store.insert(first);
    expect(ids(await a.store.subscribers('user.created', owner))).toEqual([first.id]); // a's copy is warm

    await b.store.update(first.id, { url: 'https://example.com/moved' });
    expect((await a.store.subscribers('user.created', owner))[0]!.url).toBe('https://example.com/moved');

    await b.store.update(first.id, { events: ['achievement.unlocked'] });
    expect(await a.store.subscribers('user.created', owner)).toEqual([]);
    expect(ids(await a.store.subscribers('achievement.unlocked', owner))).toEqual([first.id]);

    // a failure changes the circuit state the hot path relies on
    await b.store.recordFailure(first.id, new Date());
    expect((await a.store.subscribers('achievement.unlocked', owner))[0]!.consecutiveFailures).toBe(1);

    await b.store.update(first.id, { enabled: false, disabledReason: 'persistent_failure' });
    expect(await a.store.subscribers('achievement.unlocked', owner)).toEqual([]);

    const everyone = endpoint('admin', { scope: 'all' });
    await b.store.insert(everyone);
    expect(ids(await a.store.subscribers('user.created', owner))).toEqual([everyone.id]);

    await b.store.remove(everyone.id);
    expect(await a.store.subscribers('user.created', owner)).toEqual([]);
  });
});
