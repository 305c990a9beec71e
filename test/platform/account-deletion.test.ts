import { randomBytes } from 'node:crypto';
import { BLACKLIST_KEY_PREFIX } from '@lingua/auth';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { isolatedServiceEnv, redisUrl, waitFor } from '@lingua/testing';
import {
  GOOGLE_AUD,
  GOOGLE_ISS,
  type JwksServer,
  startJwksServer,
} from '../../services/identity/test/harness';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// An account deleted through the gateway, as the app does it, with data in every service and a
// second device still signed in: afterwards no service holds anything of the user (every collection
// of every database, GridFS buckets included, and every Redis key), the other device's token is
// refused, and the same Google account can sign up again. Issue 36 item 3.
jest.setTimeout(180_000);

let stack: InProcessStack;
let jwks: JwksServer;
let redis: RedisHandle;
const call = gatewayCaller(() => stack.gateway.url);
const nowS = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  jwks = await startJwksServer();
  redis = await connectRedis(redisUrl());
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      GOOGLE_JWKS_URL: jwks.url,
      GOOGLE_AUDIENCES: GOOGLE_AUD,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // a sign-in remembers only its newest access token: revoking by the tokens it recorded misses older ones
      IDENTITY_REFRESH_HISTORY: '1',
      // the sweeper resumes an interrupted deletion within seconds, not the production minute
      IDENTITY_ERASURE_RETRY_MS: '1000',
    }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await redis?.close();
  await jwks?.close();
});

/** What a service's database holds that mentions `needle`: "<collection>: <document>" lines. */
async function mentions(needle: string) {
  const found: string[] = [];
  for (const [name, service] of Object.entries(stack.services)) {
    const db = service.deps.mongo.connection.db!;
    for (const { name: collection } of await db.listCollections().toArray()) {
      for (const doc of await db.collection(collection).find({}).toArray()) {
        const text = JSON.stringify(doc);
        if (text.includes(needle)) found.push(`${name}.${collection}: ${text.slice(0, 300)}`);
      }
    }
  }
  return found;
}

/** Redis keys whose names mention `needle`. */
async function redisKeysOf(needle: string) {
  const keys: string[] = [];
  for await (const batch of redis.client.scanIterator({ MATCH: `*${needle}*`, COUNT: 1000 }))
    keys.push(...batch);
  return keys;
}

describe('account deletion carried through every service', () => {
  it('When a user with data in every service deletes the account, Then no service holds anything of it, a second device is refused, and the Google account signs up anew', async () => {
    const sub = `${Date.now()}.${randomBytes(6).toString('hex')}`;
    const email = `del${randomBytes(4).toString('hex')}@example.com`;
    const googleSignIn = async () =>
      call('POST', '/api/v1/auth/google', {
        body: {
          idToken: await jwks.sign(
            { sub, email, email_verified: true, nonce: 'n-1' },
            { iss: GOOGLE_ISS, aud: GOOGLE_AUD, iat: nowS(), expSeconds: nowS() + 600 },
          ),
          nonce: 'n-1',
        },
      });
    const signUp = await googleSignIn();
    expect(signUp.status).toBe(200);
    expect(signUp.body.data.isNewUser).toBe(true);
    const userId = signUp.body.data.userId as string;
    const token = signUp.body.data.accessToken as string;
    const secondDevice = await googleSignIn();
    expect(secondDevice.body.data.userId).toBe(userId);
    const otherToken = secondDevice.body.data.accessToken as string;

    // data in every service
    const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'House' } });
    expect(set.status).toBe(201);
    const setId = set.body.data.set.id as string;
    const csv = 'word,translation\r\nwindow,Fenster\r\ndoor,Tür\r\n';
    const cards = new FormData();
    cards.append('setId', setId);
    cards.append('format', 'csv');
    cards.append('file', new Blob([csv], { type: 'text/csv' }), 'house.csv');
    expect((await call('POST', '/api/import/cards', { token, raw: cards })).status).toBe(200);
    expect(
      (
        await call('POST', '/api/flashcards', {
          token,
          body: {
            word: 'roof',
            translation: 'Dach',
            definition: 'the top of a house',
            difficultyLevel: 'A1',
          },
        })
      ).status,
    ).toBe(200);
    const session = await call('POST', '/api/learning/session/start', {
      token,
      body: { mode: 'learn', setId },
    });
    expect(session.status).toBe(201);
    const [card] = session.body.data.cards as { id: string }[];
    const review = await call('POST', '/api/learning/review', {
      token,
      body: {
        cardId: card!.id,
        rating: 5,
        responseTime: 1500,
        mode: 'flip',
        sessionId: session.body.data.sessionId,
      },
    });
    expect(review.status).toBe(200);
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
    const webhook = await call('POST', '/api/webhooks', {
      token,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['achievement.unlocked'] },
    });
    expect(webhook.status).toBe(201);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(5_000)]);
    const form = new FormData();
    form.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    expect((await call('PUT', '/api/users/profile', { raw: form, token })).status).toBe(200);
    // the phone's push token (issue 37 item 1)
    const device = await call('POST', '/api/users/devices', {
      token,
      body: { platform: 'ios', token: randomBytes(32).toString('hex'), appVersion: '1.0.0' },
    });
    expect(device.status).toBe(201);
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
    // the welcome notification (user.created) is there before the deletion
    await waitFor(
      async () =>
        expect((await call('GET', '/api/notifications', { token })).body.data.notifications).not.toEqual([]),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect((await mentions(userId)).length).toBeGreaterThan(10);

    const deleted = await call('DELETE', '/api/users/account', { token, body: {} });
    expect(deleted.status).toBe(200);

    // the other device can no longer write
    const late = await call('POST', '/api/flashcards', {
      token: otherToken,
      body: { word: 'roof', translation: 'Dach', definition: 'the top of a house', difficultyLevel: 'A1' },
    });
    expect(late.status).toBe(401);

    // after the events settle, nothing of the user is left but the records named here
    const tombstones = [
      /^identity\.users: \{"_id":"[^"]+"/, // the soft-deleted account: id, deletedAt, no personal data
      /^\w+\.deleted_users: /, // each service's tombstone
      /^identity\.revoked_tokens: \{"_id":"user:/, // every token of the user refused, until they expire
    ];
    await waitFor(
      async () => {
        const left = (await mentions(userId)).filter((line) => !tombstones.some((t) => t.test(line)));
        expect(left).toEqual([]);
        const keysLeft = (await redisKeysOf(userId)).filter(
          (k) =>
            // the revocation of every token of the user, until the last one expires (within the hour)
            k !== `${BLACKLIST_KEY_PREFIX}user:${userId}` &&
            // the gateway's hourly rate budgets (it holds nothing durable; they expire within the hour)
            !k.includes(`-rl:`) &&
            // flashcards' due read model drops its data but keeps its write fences (generation,
            // dirty mark, card versions: a late write is refused), which expire with the model's
            // lifetime (FLASHCARDS_DUE_INDEX_TTL_S + 60 s)
            !/^flashcards:due:\{[^}]+\}:(gen|dirty|ver)$/.test(k),
        );
        expect(keysLeft).toEqual([]);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // erased, among the rest: the push devices (nothing may be pushed to a deleted account)
    const identityDb = stack.services.identity.deps.mongo.connection.db!;
    expect(await identityDb.collection('devices').countDocuments({ userId })).toBe(0);
    const account = await stack.services.identity.deps.mongo.connection
      .db!.collection('users')
      .findOne({ _id: userId as never });
    expect(account).toMatchObject({ deletedAt: expect.any(Date), profile: {}, passwordHash: null });
    expect(JSON.stringify(account)).not.toContain(email);

    // the same Google account makes a new account
    const again = await googleSignIn();
    expect(again.status).toBe(200);
    expect(again.body.data.isNewUser).toBe(true);
    expect(again.body.data.userId).not.toBe(userId);
  });

  it('When the account is deleted, Then an access token another device got before refreshing is refused too, not only the tokens its sign-in recorded', async () => {
    const u = newCredentials('dl');
    const reg = await call('POST', '/api/v1/auth/register', { body: u });
    expect(reg.status).toBe(201);
    const login = await call('POST', '/api/v1/auth/login', {
      body: { email: u.email, password: u.password },
    });
    expect(login.status).toBe(200);
    const early = login.body.data.accessToken as string;
    // the device refreshes (as the app does before its token expires) and keeps its older token
    let refreshToken = login.body.data.refreshToken as string;
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', '/api/auth/refresh', { body: { refreshToken } });
      expect(r.status).toBe(200);
      refreshToken = r.body.data.refreshToken as string;
    }
    const write = () =>
      call('POST', '/api/flashcards', {
        token: early,
        body: { word: 'gate', translation: 'Tor', definition: 'a door in a fence', difficultyLevel: 'A1' },
      });
    expect((await write()).status).toBe(200);

    const deleted = await call('DELETE', '/api/users/account', {
      token: reg.body.data.accessToken,
      body: { password: u.password },
    });
    expect(deleted.status).toBe(200);
    expect((await write()).status).toBe(401);
  });

  it("When a deletion fails after the user's tokens were revoked (the database refused the soft delete), Then the deletion is carried through once the database takes it: the account cannot sign in and its cards are erased", async () => {
    const u = newCredentials('dh');
    const reg = await call('POST', '/api/v1/auth/register', { body: u });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const userId = reg.body.data.userId as string;
    const card = await call('POST', '/api/flashcards', {
      token,
      body: {
        word: 'bridge',
        translation: 'Brücke',
        definition: 'a way over a river',
        difficultyLevel: 'A1',
      },
    });
    expect(card.status).toBe(200);
    // the soft delete's write collides with a document holding the name it gives the account: the
    // request fails after the deletion record and the revocation, as when the database goes mid-way
    const users = stack.services.identity.deps.mongo.connection.db!.collection('users');
    const blockerId = `blocker-${randomBytes(6).toString('hex')}`;
    await users.insertOne({
      _id: blockerId as never,
      email: `${blockerId}@invalid.lingua`,
      username: blockerId,
      usernameKey: `deleted_${userId}`,
    });
    try {
      const failed = await call('DELETE', '/api/users/account', { token, body: { password: u.password } });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      // the app's retry: its token is refused, so it signs in again
      expect(
        (await call('DELETE', '/api/users/account', { token, body: { password: u.password } })).status,
      ).toBe(401);
    } finally {
      await users.deleteOne({ _id: blockerId as never });
    }
    // the sweeper carries the recorded deletion through: the account is gone and its data erased
    await waitFor(
      async () => {
        const login = await call('POST', '/api/v1/auth/login', {
          body: { email: u.email, password: u.password },
        });
        expect(login.status).toBe(401);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const cards = stack.services.flashcards.deps.mongo.connection.db!.collection('cards');
    await waitFor(async () => expect(await cards.countDocuments({ userId })).toBe(0), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });
});
