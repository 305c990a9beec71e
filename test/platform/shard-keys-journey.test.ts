import { randomBytes } from 'node:crypto';
import {
  type ShardDeclaration,
  documentHasShardKey,
  filterIsTargeted,
  isSharded,
  upsertIsTargeted,
} from '@lingua/mongo';
import { isolatedServiceEnv, mongoUrl, waitFor } from '@lingua/testing';
import { userJourney } from '../client/journey';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';
import { SHARD_DECLARATIONS } from './shard-declarations';

// Issue 40 item 2: an app's journey through the gateway (sign-up, cards, reviews, stats, AI,
// subscription, notifications, devices, webhooks, avatar, reminders on, account deletion), with every
// command the five services send to the database captured on the wire (bench/journey/capture.js, the
// journey bench's tap). Each query on a collection declared sharded must carry its shard key, so that a
// mongos sends it to the shard that owns the user rather than to every shard; the exceptions are
// listed below with why. A collection the services use without a declaration fails the test too.
jest.setTimeout(240_000);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const capture = require('../../bench/journey/capture') as {
  startCapture(
    target: string,
    o: { commands: string[] },
  ): Promise<{ port: number; shapes: Map<string, { count: number; sample: Query }>; close(): Promise<void> }>;
  QUERY_COMMANDS: string[];
  shapeOf(v: unknown): unknown;
};

interface Query {
  db: string;
  collection: string;
  op: string;
  filter?: Record<string, unknown>;
  pipeline?: Record<string, unknown>[];
  document?: Record<string, unknown>;
  upsert?: boolean;
}

/**
 * Queries on sharded collections that go to every shard, and why that is acceptable. Matched by
 * service, collection, operation and the filter's field names.
 */
const OUTBOX_POLL =
  "the outbox relay's safety-net poll (libs/events): every document with staged events, whoever owns it; one query per relay every few seconds, answered from each shard's small _outboxPending index";
const BROADCASTS: { service: string; collection: string; op: string; fields: string[]; why: string }[] = [
  ...['cards', 'achievement_unlocks', 'learning_profiles'].flatMap((collection) => [
    { service: 'flashcards', collection, op: 'find', fields: ['_outboxPending'], why: OUTBOX_POLL },
  ]),
  {
    service: 'flashcards',
    collection: 'learning_profiles',
    op: 'find',
    fields: ['nextReminderAt'],
    why: "the study-reminder scheduler's tick (ADR 0028): the users due now, across all users; one query per replica per tick, from each shard's sparse nextReminderAt index",
  },
  {
    service: 'identity',
    collection: 'refresh_families',
    op: 'delete',
    fields: ['userId'],
    why: "account deletion erases every sign-in of the user: once per account; a user's sign-ins are spread by their ids so that the refresh (hot) is targeted",
  },
  ...[
    ['update', ['revokedAt', 'userId']],
    ['find', ['accessTokens.exp', 'revokedAt', 'userId']],
  ].map(([op, fields]) => ({
    service: 'identity',
    collection: 'refresh_families',
    op: op as string,
    fields: fields as string[],
    why: '"log out of all devices", a password reset or an account deletion ends every sign-in of the user: rare, and the refresh (hot) is targeted instead',
  })),
  {
    service: 'identity',
    collection: 'refresh_families',
    op: 'find',
    fields: ['accessTokens.jti'],
    why: 'logout finds the sign-in behind the access token it presents (by jti): once per logout, against the refresh on every app start',
  },
  {
    service: 'identity',
    collection: 'refresh_families',
    op: 'delete',
    fields: ['expiresAt'],
    why: 'the sweep of expired sign-ins, a maintenance query over all users',
  },
];

type Service = keyof typeof SHARD_DECLARATIONS;

/** The fields a filter (or an aggregation's first $match) names at its top level or under $and/$or. */
function filterOf(q: Query): Record<string, unknown> {
  if (q.op === 'aggregate') {
    const match = q.pipeline?.[0]?.$match;
    return (match as Record<string, unknown> | undefined) ?? {};
  }
  return q.filter ?? {};
}

const fieldsOf = (filter: Record<string, unknown>): string[] =>
  Object.entries(filter)
    .flatMap(([k, v]) =>
      k === '$and' || k === '$or' ? (v as Record<string, unknown>[]).flatMap(fieldsOf) : [k],
    )
    .sort();

/** Whether the query reaches only the shards of its key's values; undefined when the collection is unsharded. */
function verdict(q: Query, declaration: ShardDeclaration): 'targeted' | 'broadcast' | 'unsharded' {
  if (!isSharded(declaration)) return 'unsharded';
  if (q.op === 'insert')
    return documentHasShardKey(declaration.key, q.document ?? {}) ? 'targeted' : 'broadcast';
  if (q.upsert) return upsertIsTargeted(declaration.key, q.filter ?? {}) ? 'targeted' : 'broadcast';
  return filterIsTargeted(declaration.key, filterOf(q)) ? 'targeted' : 'broadcast';
}

let stack: InProcessStack | undefined;
let tap: Awaited<ReturnType<typeof capture.startCapture>>;
const call = gatewayCaller(() => stack!.gateway.url);

beforeAll(async () => {
  tap = await capture.startCapture(new URL(mongoUrl()).host, {
    commands: [...capture.QUERY_COMMANDS, 'insert'],
  });
  stack = await startInProcessStack(
    isolatedServiceEnv({
      MONGO_URL: `mongodb://127.0.0.1:${tap.port}`,
      IDENTITY_BCRYPT_COST: '4',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await tap?.close();
});

describe('shard keys on the queries of an app journey', () => {
  it('When a user goes through the app from sign-up to account deletion, Then every query on a sharded collection carries its shard key, except the listed broadcasts', async () => {
    const creds = newCredentials('sk');
    const journey = await userJourney(stack!.gateway.url, creds);
    expect(journey.steps.every((s) => s.status < 300)).toBe(true);

    const login = await call('POST', '/api/v1/auth/login', {
      body: { email: creds.email, password: 'Secret123' },
    });
    expect(login.status).toBe(200);
    const token = login.body.data.accessToken as string;
    const userId = login.body.data.userId as string;
    // the app's refresh on start (the sign-in rotates)
    const refreshed = await call('POST', '/api/auth/refresh', {
      body: { refreshToken: login.body.data.refreshToken },
    });
    expect(refreshed.status).toBe(200);

    // a second device signs in, then out
    const other = await call('POST', '/api/v1/auth/login', {
      body: { email: creds.email, password: 'Secret123' },
    });
    expect(other.status).toBe(200);
    expect(
      (await call('POST', '/api/auth/logout', { token: other.body.data.accessToken, body: {} })).status,
    ).toBe(200);

    // profile, reminders on, a phone, an avatar
    expect(
      (await call('PUT', '/api/users/profile', { token, body: { timezone: 'Europe/Berlin' } })).status,
    ).toBe(200);
    expect(
      (
        await call('PUT', '/api/users/settings', {
          token,
          body: { reminderEnabled: true, reminderTime: '08:30', pushNotifications: true },
        })
      ).status,
    ).toBe(200);
    const device = await call('POST', '/api/users/devices', {
      token,
      body: { platform: 'ios', token: randomBytes(32).toString('hex'), appVersion: '1.0.0' },
    });
    expect(device.status).toBe(201);
    expect((await call('GET', '/api/users/devices', { token })).status).toBe(200);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2_000)]);
    const form = new FormData();
    form.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    expect((await call('PUT', '/api/users/profile', { raw: form, token })).status).toBe(200);

    // cards, a review, stats
    const card = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'roof', translation: 'Dach', definition: 'the top of a house', difficultyLevel: 'A1' },
    });
    expect(card.status).toBe(200);
    const cardId = card.body.data.id ?? card.body.data.card?.id;
    expect(
      (await call('POST', '/api/learning/review', { token, body: { cardId, rating: 4, responseTime: 1500 } }))
        .status,
    ).toBe(200);
    for (const period of ['week', 'month'])
      expect((await call('GET', `/api/learning/stats?period=${period}`, { token })).status).toBe(200);
    expect((await call('GET', '/api/achievements', { token })).status).toBe(200);

    // AI
    const described = await call('POST', '/api/ai/images/description', { token, body: { word: 'umbrella' } });
    expect(described.status).toBe(200);
    const image = await call('POST', '/api/ai/images', {
      token,
      body: { description: described.body.data.description },
    });
    expect(image.status).toBe(201);
    expect(
      (await call('POST', '/api/ai/analyze-text', { token, body: { text: 'I has a cat.' } })).status,
    ).toBe(200);

    // a subscription, notifications, a webhook
    const tx = `tx${randomBytes(8).toString('hex')}`;
    const bought = await call('POST', '/api/v1/subscriptions/verify-receipt', {
      token,
      body: {
        platform: 'ios',
        receipt_data: `sandbox_valid_${tx}`,
        transaction_id: tx,
        product_id: 'com.lingua.premium.monthly',
      },
    });
    expect(bought.status).toBe(201);
    expect((await call('GET', '/api/v1/subscriptions/status', { token })).status).toBe(200);
    await waitFor(
      async () =>
        expect((await call('GET', '/api/notifications', { token })).body.data.notifications).not.toEqual([]),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect((await call('PUT', '/api/notifications/read-all', { token })).status).toBeLessThan(300);
    const webhook = await call('POST', '/api/webhooks', {
      token,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['achievement.unlocked'] },
    });
    expect(webhook.status).toBe(201);

    // the account deleted, and its data erased in every service
    expect(
      (await call('DELETE', '/api/users/account', { token, body: { password: 'Secret123' } })).status,
    ).toBe(200);
    const db = (service: Service) => stack!.services[service].deps.mongo.connection.db!;
    await waitFor(
      async () => {
        expect(await db('flashcards').collection('cards').countDocuments({ userId })).toBe(0);
        expect(await db('subscriptions').collection('subscriptions').countDocuments({ userId })).toBe(0);
        for (const service of ['ai', 'notifications'] as const)
          expect(
            await db(service)
              .collection('deleted_users')
              .countDocuments({ _id: userId as never }),
          ).toBe(1);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const rows = [...tap.shapes.values()].map(({ count, sample }) => {
      const service = sample.db.slice(sample.db.lastIndexOf('_') + 1) as Service;
      const declaration = SHARD_DECLARATIONS[service]?.find((d) => d.collection === sample.collection);
      const fields =
        sample.op === 'insert' ? Object.keys(sample.document ?? {}).sort() : fieldsOf(filterOf(sample));
      return {
        service,
        collection: sample.collection,
        op: sample.op,
        fields,
        count,
        verdict: declaration ? verdict(sample, declaration) : 'undeclared',
        shape: JSON.stringify(capture.shapeOf(sample.op === 'aggregate' ? sample.pipeline : sample.filter)),
      };
    });
    const allowed = (r: (typeof rows)[number]) =>
      BROADCASTS.find(
        (b) =>
          b.service === r.service &&
          b.collection === r.collection &&
          b.op === r.op &&
          JSON.stringify(b.fields) === JSON.stringify(r.fields),
      );
    const sharded = rows.filter((r) => r.verdict === 'targeted' || r.verdict === 'broadcast');
    const unseen = BROADCASTS.filter((b) => !rows.some((r) => allowed(r) === b));
    // eslint-disable-next-line no-console
    console.log(
      [
        `shard keys: ${rows.length} query shapes captured, ${sharded.length} on sharded collections,`,
        `${sharded.filter((r) => r.verdict === 'targeted').length} targeted, ${sharded.filter((r) => r.verdict === 'broadcast').length} broadcast (allowed):`,
        ...rows
          .sort((a, b) =>
            `${a.service}.${a.collection}.${a.op}`.localeCompare(`${b.service}.${b.collection}.${b.op}`),
          )
          .map(
            (r) =>
              `  ${r.verdict.padEnd(10)} ${r.service}.${r.collection} ${r.op} ${r.op === 'insert' ? `{${r.fields.join(', ')}}` : r.shape.slice(0, 140)} ×${r.count}${r.verdict === 'broadcast' ? ` — ${allowed(r)?.why ?? 'NOT ALLOWED'}` : ''}`,
          ),
        `allowed broadcasts this journey did not issue: ${unseen.map((b) => `${b.service}.${b.collection} ${b.op} {${b.fields.join(', ')}}`).join('; ')}`,
      ].join('\n'),
    );
    expect(rows.filter((r) => r.verdict === 'undeclared').map((r) => `${r.service}.${r.collection}`)).toEqual(
      [],
    );
    expect(
      rows
        .filter((r) => r.verdict === 'broadcast' && !allowed(r))
        .map((r) => `${r.service}.${r.collection} ${r.op} ${r.shape}`),
    ).toEqual([]);
    // the journey did reach every service's sharded data
    expect(sharded.filter((r) => r.verdict === 'targeted').length).toBeGreaterThan(20);
  });
});
