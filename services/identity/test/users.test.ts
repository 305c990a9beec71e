import {
  createGrpcClient,
  createGrpcServer,
  devCallSigner,
  devTrustedCallers,
  type GrpcServer,
} from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { freePort, silentLogger } from '@lingua/testing';
import { eventually, bearer, type Harness, ipHeader, newUser, startIdentity } from './harness';

// generous: the machine is shared and under load; nothing here depends on speed
jest.setTimeout(180_000);

// A stand-in flashcards gRPC server on loopback answers GetCardStats for the profile and keeps the
// daily goals and zones SetLearningPreferences writes through to it.
const DEADLINE_MS = 300;
let h: Harness;
let flashcards: GrpcServer;
let flashcardsPort = 0;
/** Users whose GetCardStats the stand-in holds until released: flashcards is slow for them. */
const slow = new Set<string>();
const releases: (() => void)[] = [];
/** Users the stand-in was asked about (so a test knows its case was exercised). */
const askedFor = new Set<string>();
const STATS = { total_cards: 12, due_cards: 3, mastered_cards: 4, favorite_cards: 1 };
/** The goals and zones written through to the stand-in, by user. */
const preferences = new Map<string, { daily_goal?: number; timezone?: string }>();

async function startStandIn() {
  // checks identity's call assertions as the real flashcards does (development keys)
  flashcards = createGrpcServer({
    logger: silentLogger(),
    serviceName: 'flashcards',
    callers: devTrustedCallers(['identity']),
  });
  flashcards.addService(
    loadPackage().lingua.flashcards.v1.FlashcardsService.service,
    {
      GetCardStats: async (req) => {
        askedFor.add(req.user_id);
        // held until the test releases it (never longer than the test could wait)
        if (slow.has(req.user_id))
          await new Promise<void>((release) => {
            releases.push(release);
            setTimeout(release, 30_000).unref();
          });
        return { ...STATS, daily_goal: preferences.get(req.user_id)?.daily_goal ?? 20 };
      },
      SetLearningPreferences: async (req) => {
        const kept = { ...preferences.get(req.user_id) };
        if (req.daily_goal !== undefined) kept.daily_goal = req.daily_goal;
        if (req.timezone !== undefined) kept.timezone = req.timezone;
        preferences.set(req.user_id, kept);
        return { daily_goal: kept.daily_goal ?? 20 };
      },
    },
    { GetCardStats: ['identity'], SetLearningPreferences: ['identity'] },
  );
  await flashcards.start(flashcardsPort, '127.0.0.1');
}

beforeAll(async () => {
  flashcardsPort = await freePort();
  await startStandIn();
  h = await startIdentity({
    FLASHCARDS_ADDR: `127.0.0.1:${flashcardsPort}`,
    FLASHCARDS_STATS_DEADLINE_MS: String(DEADLINE_MS),
  });
}, 180_000);
afterAll(async () => {
  for (const release of releases) release();
  await h?.stop();
  await flashcards?.stop(0);
});

async function account(overrides: Record<string, unknown> = {}) {
  const u = newUser(overrides);
  const res = await h.post('/api/v1/auth/register', u);
  expect(res.status).toBe(201);
  return { ...u, userId: res.body.data.userId as string, token: res.body.data.accessToken as string };
}

// smallest valid PNG (1x1)
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const upload = (token: string, file: Buffer, type: string, fields: Record<string, string> = {}) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('avatar', new Blob([new Uint8Array(file)], { type }), 'avatar');
  return h.request('PUT', '/api/users/profile', { raw: form, headers: bearer(token) });
};

describe('profile', () => {
  it('When the profile is read, Then user, profile (with settings) and card stats from flashcards', async () => {
    const u = await account({ preferredLanguage: 'es' });
    const res = await h.request('GET', '/api/users/profile', { headers: bearer(u.token) });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({
      id: u.userId,
      email: u.email,
      username: u.username,
      role: 'user',
    });
    expect(res.body.data.user.passwordHash).toBeUndefined();
    expect(res.body.data.profile).toMatchObject({
      preferredLanguage: 'es',
      avatarUrl: null,
      settings: { theme: 'auto' },
    });
    expect(res.body.data.stats).toEqual({
      totalCards: 12,
      dueCards: 3,
      masteredCards: 4,
      favoriteCards: 1,
    });
    expect(res.body.data.degraded).toEqual([]);
  });

  it('When flashcards does not answer within the deadline, Then the profile answers in time with stats null and marked degraded, never zeros', async () => {
    const u = await account();
    slow.add(u.userId);
    const started = performance.now();
    const res = await h.request('GET', '/api/users/profile', { headers: bearer(u.token) });
    const elapsed = performance.now() - started;
    // the stand-in still holds the call: the answer did not wait for it
    expect(askedFor.has(u.userId)).toBe(true);
    expect(releases.length).toBeGreaterThan(0);
    for (const release of releases.splice(0)) release();
    expect(res.status).toBe(200);
    expect(res.body.data.stats).toBeNull();
    expect(res.body.data.degraded).toEqual(['stats']);
    // the rest of the profile is whole
    expect(res.body.data.user).toMatchObject({ id: u.userId, email: u.email });
    expect(res.body.data.profile.settings).toMatchObject({ theme: 'auto' });
    // the deadline plus room for a loaded shared machine; the stand-in would hold it for 30 s
    expect(elapsed).toBeLessThan(DEADLINE_MS + 2_000);
  });

  it('When flashcards is down, Then the profile answers with stats null and marked degraded; when it is back, the counts are back', async () => {
    const u = await account();
    const profile = () => h.request('GET', '/api/users/profile', { headers: bearer(u.token) });
    expect((await profile()).body.data.degraded).toEqual([]);
    await flashcards.stop(0);
    try {
      const started = performance.now();
      const res = await profile();
      expect(performance.now() - started).toBeLessThan(DEADLINE_MS + 2_000);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ user: { id: u.userId }, stats: null, degraded: ['stats'] });
      // the goal and zone are kept by flashcards (ADR 0025): changing them fails whole, never half
      const goal = await h.request('PUT', '/api/users/settings', {
        headers: bearer(u.token),
        body: { dailyGoal: 7 },
      });
      const zone = await h.request('PUT', '/api/users/profile', {
        headers: bearer(u.token),
        body: { timezone: 'Asia/Tokyo' },
      });
      expect([goal.status, zone.status]).toEqual([503, 503]);
      const after = (await profile()).body.data;
      expect(after.profile.settings.dailyGoal).toBe(20);
      expect(after.profile.timezone).not.toBe('Asia/Tokyo');
    } finally {
      await startStandIn();
    }
    await eventually(async () => {
      const res = await profile();
      expect(res.body.data).toMatchObject({ stats: { totalCards: 12 }, degraded: [] });
    });
  });

  it('When the OpenAPI document is read, Then the profile says stats may be null and names the degraded parts', async () => {
    const doc = (await h.request('GET', '/internal/openapi.json')).body;
    const data =
      doc.paths['/api/users/profile'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(data.required).toEqual(expect.arrayContaining(['stats', 'degraded']));
    expect(data.properties.stats.type).toEqual(['object', 'null']);
    expect(data.properties.stats.description).toMatch(/null when/);
    expect(data.properties.degraded).toMatchObject({ type: 'array', items: { enum: ['stats'] } });
  });

  it('When profile fields are updated, Then they are stored; a taken username is 409 RES002; a bad time zone is 400 VAL001', async () => {
    const u = await account();
    const other = await account();
    const res = await h.request('PUT', '/api/users/profile', {
      headers: bearer(u.token),
      body: {
        displayName: 'Ann',
        bio: 'Learning German',
        timezone: 'Europe/Berlin',
        preferredLanguage: 'de',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      message: expect.any(String),
      user: {
        profile: {
          displayName: 'Ann',
          bio: 'Learning German',
          timezone: 'Europe/Berlin',
          preferredLanguage: 'de',
        },
      },
    });
    const taken = await h.request('PUT', '/api/users/profile', {
      headers: bearer(u.token),
      body: { username: other.username },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('RES002');
    const tz = await h.request('PUT', '/api/users/profile', {
      headers: bearer(u.token),
      body: { timezone: 'Mars/Olympus' },
    });
    expect(tz.status).toBe(400);
    expect(tz.body.error).toMatchObject({ code: 'VAL001', details: { timezone: [expect.any(String)] } });
  });

  it('When a PNG avatar is uploaded, Then it is stored and served; a non-image is 400; over 10 MB for a free user is 413', async () => {
    const u = await account();
    const res = await upload(u.token, PNG, 'image/png', { displayName: 'Pic' });
    expect(res.status).toBe(200);
    const url = res.body.data.user.profile.avatarUrl as string;
    expect(url).toMatch(/^\/api\/users\/avatars\/[A-Za-z0-9_-]+\.png$/);
    const served = await fetch(`${h.url}${url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    const text = await upload(u.token, Buffer.from('<script>alert(1)</script>'), 'image/png');
    expect(text.status).toBe(400);
    expect(text.body.error).toMatchObject({ code: 'VAL001', details: { avatar: [expect.any(String)] } });

    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    const tooBig = await upload(u.token, big, 'image/png');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('VAL002');
    expect((await h.request('GET', '/api/users/avatars/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
  });
});

describe('settings', () => {
  it('When settings are updated, Then they are stored and read back; invalid values are 400 with each field', async () => {
    const u = await account();
    const res = await h.request('PUT', '/api/users/settings', {
      headers: bearer(u.token),
      body: {
        dailyGoal: 30,
        reminderEnabled: true,
        reminderTime: '07:30',
        theme: 'dark',
        studyMode: 'quiz',
        pushNotifications: false,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.settings).toEqual({
      dailyGoal: 30,
      reminderEnabled: true,
      reminderTime: '07:30',
      emailNotifications: true,
      pushNotifications: false,
      theme: 'dark',
      studyMode: 'quiz',
    });
    const profile = await h.request('GET', '/api/users/profile', { headers: bearer(u.token) });
    expect(profile.body.data.profile.settings.theme).toBe('dark');
    const bad = await h.request('PUT', '/api/users/settings', {
      headers: bearer(u.token),
      body: { dailyGoal: 'many', reminderTime: '25:99', theme: 'neon', studyMode: { $ne: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details).sort()).toEqual([
      'dailyGoal',
      'reminderTime',
      'studyMode',
      'theme',
    ]);
  });
});

describe('account deletion', () => {
  it('When the password is wrong, Then 401 and nothing is deleted; when right, Then user.deleted, the token is revoked and the e-mail is free again', async () => {
    const u = await account();
    const wrong = await h.request('DELETE', '/api/users/account', {
      headers: bearer(u.token),
      body: { password: 'Nope12345' },
    });
    expect(wrong.status).toBe(401);
    expect((await h.request('GET', '/api/users/profile', { headers: bearer(u.token) })).status).toBe(200);

    const res = await h.request('DELETE', '/api/users/account', {
      headers: bearer(u.token),
      body: { password: u.password, reason: 'moving on' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toEqual(expect.any(String));
    await eventually(() =>
      // the user's free-text reason stays with identity, off the stream every subscriber reads
      expect(h.events.find((e) => e.event === 'user.deleted' && e.data.userId === u.userId)?.data).toEqual({
        userId: u.userId,
      }),
    );
    const tombstone = await h.service.deps.mongo.connection
      .collection('users')
      .findOne({ _id: u.userId as unknown as never });
    expect(tombstone).toMatchObject({ deletionReason: 'moving on' });
    const after = await h.request('GET', '/api/users/profile', { headers: bearer(u.token) });
    expect(after.status).toBe(401);
    expect(
      (await h.post('/api/v1/auth/login', { email: u.email, password: u.password }, ipHeader())).status,
    ).toBe(401);
    const client = createGrpcClient(
      loadPackage().lingua.identity.v1.IdentityService,
      h.service.grpcAddress!,
      {
        // no service calls IdentityService yet: only an operator may
        signer: devCallSigner('operator'),
        defaultDeadlineMs: 30_000,
      },
    );
    try {
      await expect(client.call('GetUser', { user_id: u.userId })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      client.close();
    }
    expect((await h.post('/api/v1/auth/register', newUser({ email: u.email }))).status).toBe(201);
  });
});

describe('gRPC IdentityService', () => {
  it('When another service resolves a user by id or e-mail, Then it gets the user with role and status', async () => {
    const u = await account();
    const client = createGrpcClient(
      loadPackage().lingua.identity.v1.IdentityService,
      h.service.grpcAddress!,
      {
        // no service calls IdentityService yet: only an operator may
        signer: devCallSigner('operator'),
        defaultDeadlineMs: 30_000,
      },
    );
    try {
      const byId = await client.call('GetUser', { user_id: u.userId });
      expect(byId.user).toMatchObject({
        user_id: u.userId,
        email: u.email,
        role: 'user',
        subscription_status: 'inactive',
      });
      const byEmail = await client.call('ResolveUser', { email: u.email.toUpperCase() });
      expect(byEmail.user?.user_id).toBe(u.userId);
    } finally {
      client.close();
    }
  });
});
