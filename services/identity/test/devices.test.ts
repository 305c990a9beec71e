import { randomBytes } from 'node:crypto';
import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { type BehindGateway, fromAddress, startIdentityBehindGateway } from './behind-gateway';
import { newUser } from './harness';

// Push devices (issue 37 item 1), as the app registers them through the gateway, and as
// notifications reads them over identity's gRPC port with its own call assertion.
jest.setTimeout(180_000);

let g: BehindGateway;
beforeAll(async () => {
  g = await startIdentityBehindGateway();
}, 180_000);
afterAll(async () => {
  await g?.stop();
});

const apnsToken = (bytes = 32) => randomBytes(bytes).toString('hex');
/** An FCM registration token's shape: an instance id, a colon, then a long url-safe part. */
const fcmToken = () =>
  `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(105).toString('base64url')}`;

async function signUp() {
  const u = newUser();
  const r = await g.call('POST', '/api/v1/auth/register', { body: u, headers: fromAddress() });
  expect(r.status).toBe(201);
  return { userId: r.body.data.userId as string, token: r.body.data.accessToken as string };
}

const as = (token: string) => ({ authorization: `Bearer ${token}`, ...fromAddress() });
const register = (token: string, body: Record<string, unknown>) =>
  g.call('POST', '/api/users/devices', { body, headers: as(token) });
const list = async (token: string) => {
  const r = await g.call('GET', '/api/users/devices', { headers: as(token) });
  expect(r.status).toBe(200);
  return r.body.data.devices as { id: string; token: string; platform: string; appVersion: string | null }[];
};

function identityGrpc(caller: 'notifications' | 'ai') {
  return createGrpcClient(
    loadPackage().lingua.identity.v1.IdentityService,
    `127.0.0.1:${g.identity.service.grpcPort}`,
    { signer: devCallSigner(caller), defaultDeadlineMs: 5_000 },
  );
}

describe('push devices through the gateway', () => {
  it('When the app registers, lists and deletes a device, Then it answers 201 with the device, lists it, and 204 removes it', async () => {
    const u = await signUp();
    const token = apnsToken();
    const created = await register(u.token, { platform: 'ios', token, appVersion: '3.2.1', locale: 'de-DE' });
    expect(created.status).toBe(201);
    expect(created.body.data.device).toMatchObject({
      id: expect.any(String),
      platform: 'ios',
      token,
      appVersion: '3.2.1',
      locale: 'de-DE',
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
    });
    const android = await register(u.token, { platform: 'android', token: fcmToken() });
    expect(android.status).toBe(201);
    expect(android.body.data.device).toMatchObject({ appVersion: null, locale: null });

    const devices = await list(u.token);
    expect(devices.map((d) => d.id).sort()).toEqual(
      [created.body.data.device.id, android.body.data.device.id].sort(),
    );

    const id = created.body.data.device.id as string;
    const removed = await g.call('DELETE', `/api/users/devices/${id}`, { headers: as(u.token) });
    expect(removed.status).toBe(204);
    expect((await list(u.token)).map((d) => d.id)).toEqual([android.body.data.device.id]);
    // gone: a second delete is 404, as is another user's device
    expect((await g.call('DELETE', `/api/users/devices/${id}`, { headers: as(u.token) })).status).toBe(404);
    const other = await signUp();
    const theirs = await g.call('DELETE', `/api/users/devices/${android.body.data.device.id}`, {
      headers: as(other.token),
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('RES001');
    expect((await list(u.token)).length).toBe(1);
    // without a token the gateway refuses
    expect((await g.call('GET', '/api/users/devices', { headers: fromAddress() })).status).toBe(401);
  });

  it('When a token does not fit its platform, Then 400 VALIDATION_ERROR names the field, never a 500', async () => {
    const u = await signUp();
    const bad: [string, Record<string, unknown>][] = [
      ['token', { platform: 'ios', token: 'abc123' }], // too short
      ['token', { platform: 'ios', token: 'z'.repeat(64) }], // not hex
      ['token', { platform: 'ios', token: 'a'.repeat(63) }], // odd length
      ['token', { platform: 'ios', token: 'a'.repeat(202) }], // too long
      ['token', { platform: 'ios', token: fcmToken() }], // an FCM token is no APNs token
      ['token', { platform: 'android', token: 'short:token' }],
      ['token', { platform: 'android', token: `${fcmToken()}/+=` }], // outside FCM's alphabet
      ['token', { platform: 'android', token: 'a'.repeat(4097) }],
      ['platform', { platform: 'windows', token: apnsToken() }],
      ['token', { platform: 'ios' }],
      ['appVersion', { platform: 'ios', token: apnsToken(), appVersion: 'x'.repeat(65) }],
      ['locale', { platform: 'ios', token: apnsToken(), locale: 'not a locale!' }],
    ];
    for (const [field, body] of bad) {
      const r = await register(u.token, body);
      expect({ body, status: r.status, code: r.body.error?.code }).toEqual({
        body,
        status: 400,
        code: 'VAL001',
      });
      expect(Object.keys(r.body.error.details)).toContain(field);
    }
    // the longer APNs tokens newer devices give, and upper-case hex, are accepted
    expect((await register(u.token, { platform: 'ios', token: apnsToken(80) })).status).toBe(201);
    const upper = apnsToken().toUpperCase();
    const spelled = await register(u.token, { platform: 'ios', token: upper });
    expect(spelled.status).toBe(201);
    // one token in either case is one device, kept in lower case
    const lower = await register(u.token, { platform: 'ios', token: upper.toLowerCase() });
    expect(lower.body.data.device).toMatchObject({
      id: spelled.body.data.device.id,
      token: upper.toLowerCase(),
    });
    expect((await list(u.token)).length).toBe(2);
    expect((await g.call('DELETE', '/api/users/devices/not-an-id', { headers: as(u.token) })).status).toBe(
      404,
    );
  });

  it('When a 21st device is registered, Then the least recently seen one is replaced and 20 remain', async () => {
    const u = await signUp();
    const ids: string[] = [];
    const tokens: string[] = [];
    // identity's clock is the test's: a second between registrations orders them
    const later = () => g.identity.clock.advance(1_000);
    for (let i = 0; i < 20; i++) {
      later();
      tokens.push(apnsToken());
      const r = await register(u.token, { platform: 'ios', token: tokens[i] });
      expect(r.status).toBe(201);
      ids.push(r.body.data.device.id as string);
    }
    // the first device comes back (the app starts again): now the second is the least recently seen
    later();
    expect((await register(u.token, { platform: 'ios', token: tokens[0] })).body.data.device.id).toBe(ids[0]);
    later();
    const newest = await register(u.token, { platform: 'android', token: fcmToken() });
    expect(newest.status).toBe(201);
    const left = (await list(u.token)).map((d) => d.id);
    expect(left.length).toBe(20);
    expect(left).not.toContain(ids[1]);
    expect(left).toContain(ids[0]);
    expect(left).toContain(newest.body.data.device.id);
  });

  it('When a token is registered again, Then from the same account it updates the device, and from another account it moves there', async () => {
    const a = await signUp();
    const b = await signUp();
    const token = fcmToken();
    const first = await register(a.token, { platform: 'android', token, appVersion: '1.0.0', locale: 'en' });
    expect(first.status).toBe(201);
    g.identity.clock.advance(1_000);
    const again = await register(a.token, { platform: 'android', token, appVersion: '1.1.0', locale: 'fr' });
    expect(again.status).toBe(201);
    expect(again.body.data.device).toMatchObject({
      id: first.body.data.device.id,
      appVersion: '1.1.0',
      locale: 'fr',
    });
    expect(Date.parse(again.body.data.device.lastSeenAt)).toBeGreaterThan(
      Date.parse(first.body.data.device.lastSeenAt),
    );
    expect((await list(a.token)).length).toBe(1);

    // the phone is signed in to another account: the token now reaches b only
    const moved = await register(b.token, { platform: 'android', token });
    expect(moved.status).toBe(201);
    expect(await list(a.token)).toEqual([]);
    expect((await list(b.token)).map((d) => d.token)).toEqual([token]);
    // a's old id no longer names anything a can delete
    expect(
      (await g.call('DELETE', `/api/users/devices/${first.body.data.device.id}`, { headers: as(a.token) }))
        .status,
    ).toBe(404);
  });

  it('When the same token is registered many times at once, Then the account has one device', async () => {
    const u = await signUp();
    const token = apnsToken();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => register(u.token, { platform: 'ios', token })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((r) => r.body.data.device.id)).size).toBe(1);
    expect((await list(u.token)).length).toBe(1);
    // and from two accounts at once: one owner in the end
    const other = await signUp();
    const raced = apnsToken();
    await Promise.all([
      register(u.token, { platform: 'ios', token: raced }),
      register(other.token, { platform: 'ios', token: raced }),
    ]);
    const owners = [...(await list(u.token)), ...(await list(other.token))].filter((d) => d.token === raced);
    expect(owners.length).toBe(1);
  });
});

describe('push devices over gRPC (notifications reads them)', () => {
  it('When notifications asks GetDevices, Then it gets the tokens; another caller is refused; RemoveDevice drops a token the provider refused unless it was registered again since', async () => {
    const u = await signUp();
    const ios = apnsToken();
    const fcm = fcmToken();
    expect((await register(u.token, { platform: 'ios', token: ios, locale: 'de' })).status).toBe(201);
    expect((await register(u.token, { platform: 'android', token: fcm })).status).toBe(201);
    const notifications = identityGrpc('notifications');
    const ai = identityGrpc('ai');
    try {
      const got = await notifications.call('GetDevices', { user_id: u.userId });
      expect(got.devices.map((d) => d.token).sort()).toEqual([ios, fcm].sort());
      expect(got.devices.find((d) => d.token === ios)).toMatchObject({ platform: 'ios', locale: 'de' });
      await expect(ai.call('GetDevices', { user_id: u.userId })).rejects.toMatchObject({ code: 'FORBIDDEN' });

      // refused before the app registered it again: kept
      const stale = await notifications.call('RemoveDevice', {
        user_id: u.userId,
        token: ios,
        refused_at: new Date(g.identity.clock.now().getTime() - 60_000).toISOString(),
      });
      expect(stale.removed).toBe(false);
      const now = await notifications.call('RemoveDevice', {
        user_id: u.userId,
        token: ios,
        refused_at: new Date(g.identity.clock.now().getTime() + 1_000).toISOString(),
      });
      expect(now.removed).toBe(true);
      expect((await list(u.token)).map((d) => d.token)).toEqual([fcm]);
      expect(
        (await notifications.call('GetDevices', { user_id: randomBytes(8).toString('hex') })).devices,
      ).toEqual([]);
    } finally {
      notifications.close();
      ai.close();
    }
  });

  it('When the account is deleted, Then its devices are erased with it', async () => {
    const u = newUser();
    const r = await g.call('POST', '/api/v1/auth/register', { body: u, headers: fromAddress() });
    const token = r.body.data.accessToken as string;
    expect((await register(token, { platform: 'ios', token: apnsToken() })).status).toBe(201);
    const deleted = await g.call('DELETE', '/api/users/account', {
      body: { password: u.password },
      headers: as(token),
    });
    expect(deleted.status).toBe(200);
    const left = await g.identity.service.deps.mongo.connection
      .db!.collection('devices')
      .countDocuments({ userId: r.body.data.userId });
    expect(left).toBe(0);
  });
});
