import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  BLACKLIST_INDEX_KEY,
  BLACKLIST_KEY_PREFIX,
  createBlacklistMirror,
  createTokenBlacklist,
} from '@lingua/auth';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { isolatedServiceEnv, natsUrl, redisUrl, waitFor } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// Issue 36 item 7 (events about a deleted account applied out of order recreate nothing) and the
// item 8 part about revocations lost in a Redis failover (the database keeps them; identity writes
// them back). The stack runs in this process over the real FerretDB, NATS and Redis; events are
// published on the bus as their producers publish them (the envelope, with Nats-Msg-Id).
jest.setTimeout(120_000);
let stack: InProcessStack;
let nc: NatsConnection;
let redis: RedisHandle;
let prefix: string;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(
    isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4', IDENTITY_REVOCATION_RESTORE_MS: '300' }),
  );
  prefix = stack.services.identity.deps.bus.subjectPrefix;
  nc = await connect({ servers: natsUrl() });
  redis = await connectRedis(redisUrl());
});
afterAll(async () => {
  await nc?.close();
  await redis?.close();
  await stopAndDrop(stack);
});

const publish = (e: AnyDomainEvent) =>
  jetstream(nc).publish(`${prefix}.${e.event}`, JSON.stringify(e), { msgID: e.id });

const notificationsOf = (userId: string) =>
  stack.services.notifications.deps.mongo.connection
    .db!.collection('notifications')
    .countDocuments({ userId });

describe('events about a deleted account', () => {
  it('When user.created and achievement.unlocked arrive after user.deleted, Then no notification of the deleted user reappears', async () => {
    const gone = randomUUID();
    const later = randomUUID();
    const created = (userId: string, now: Date) =>
      makeEvent(
        'user.created',
        {
          userId,
          email: `${userId}@example.com`,
          username: `u_${userId.slice(0, 8)}`,
          authProvider: 'password',
        },
        { now },
      );
    const t0 = new Date();
    await publish(makeEvent('user.deleted', { userId: gone }, { now: t0 }));
    // the other replica's late copies: stamped before the deletion, applied after it
    await publish(created(gone, new Date(t0.getTime() - 1_000)));
    await publish(
      makeEvent('achievement.unlocked', {
        userId: gone,
        achievementId: 'first_card',
        name: 'First card',
        xp: 10,
      }),
    );
    // a later event for another user; once the consumer's ack floor passed it, all before it were decided
    const { seq } = await publish(created(later, new Date()));
    const jsm = await jetstreamManager(nc);
    const stream = stack.services.notifications.deps.bus.streamName;
    await waitFor(
      async () =>
        expect(
          (await jsm.consumers.info(stream, 'notifications')).ack_floor.stream_seq,
        ).toBeGreaterThanOrEqual(seq),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(await notificationsOf(later)).toBe(1);
    expect(await notificationsOf(gone)).toBe(0);
  });
});

describe('revocations when Redis loses them', () => {
  it('When a logout is lost from Redis (as a failover to a replica that had not received it), Then the logged-out token is still refused', async () => {
    const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('rv') });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const jti = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
    expect((await call('POST', '/api/v1/auth/logout', { token, body: {} })).status).toBe(200);

    // the failover: the revocation's key and index entry are gone from Redis
    await redis.client.multi().del(`${BLACKLIST_KEY_PREFIX}${jti}`).zRem(BLACKLIST_INDEX_KEY, jti).exec();
    // a gateway replica that starts after it (its mirror loads the index) and a service asking Redis
    await waitFor(
      async () => {
        const mirror = await createBlacklistMirror(redis.client);
        try {
          expect(await mirror.isRevoked(jti)).toBe(true);
        } finally {
          await mirror.stop();
        }
        expect(await createTokenBlacklist(redis.client).isRevoked(jti)).toBe(true);
      },
      { timeoutMs: 15_000, intervalMs: 300 },
    );
    // and the running gateway still refuses it
    expect((await call('GET', '/api/users/profile', { token })).status).toBe(401);
  });
});
