import { randomBytes } from 'node:crypto';
import { connectMongo } from '@lingua/mongo';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { type BehindGateway, fromAddress, startIdentityBehindGateway } from './behind-gateway';

// Issue 36 item 8: usernames that differ only in case are one name (USERNAME_EXISTS, 409). The
// check before the insert is not enough: two sign-ups at once both pass it. The local database has
// no collation indexes, so the lower-cased copy of the name carries a unique index, and accounts
// stored before it existed get the copy at start.
jest.setTimeout(90_000);

const tag = () => randomBytes(4).toString('hex');
const register = (gw: BehindGateway, username: string) =>
  gw.post(
    '/api/v1/auth/register',
    { email: `${username.toLowerCase()}.${tag()}@example.com`, password: 'Secret123', username },
    fromAddress(),
  );

describe('usernames are unique whatever their case', () => {
  let gw: BehindGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it('When "alice" and "Alice" sign up at the same moment, Then exactly one account is created and the other gets USERNAME_EXISTS', async () => {
    gw = await startIdentityBehindGateway();
    const names = Array.from({ length: 8 }, () => `case_${tag()}`);
    const pairs = await Promise.all(
      names.map((name) => Promise.all([register(gw!, name), register(gw!, name.toUpperCase())])),
    );
    for (const pair of pairs) {
      expect(pair.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(pair.find((r) => r.status === 409)!.body.error.code).toBe('USERNAME_EXISTS');
    }
    // one after the other too, and in Group C's envelope
    const later = await register(gw, names[0]!.replace('case', 'CASE'));
    expect(later.status).toBe(409);
    expect(later.body.error.code).toBe('USERNAME_EXISTS');
    const groupC = await gw.post(
      '/api/auth/register',
      {
        email: `c.${tag()}@example.com`,
        username: names[1]!.toUpperCase(),
        password: 'Secret123',
        confirmPassword: 'Secret123',
      },
      fromAddress(),
    );
    expect(groupC.status).toBe(409);
    expect(groupC.body.error.code).toBe('RES002');
  });

  it('When accounts from before the lower-cased key exist (two of them differing only in case), Then identity starts ready and every case of their names stays taken', async () => {
    const dbName = `${uniqueName('uname')}_identity`;
    const seed = await connectMongo(mongoUrl(), dbName);
    const users = seed.connection.db!.collection('users');
    const name = `old_${tag()}`;
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    await users.insertMany([
      { _id: 'u-old-1' as never, email: `a.${tag()}@example.com`, username: name, createdAt: at(0) },
      {
        _id: 'u-old-2' as never,
        email: `b.${tag()}@example.com`,
        username: name.toUpperCase(),
        createdAt: at(1),
      },
      {
        _id: 'u-old-3' as never,
        email: `c.${tag()}@example.com`,
        username: `solo_${tag()}`,
        createdAt: at(2),
      },
    ]);
    // the index the unique one replaces, as earlier versions built it
    await users.createIndex({ usernameKey: 1 });

    gw = await startIdentityBehindGateway({ IDENTITY_MONGO_DB: dbName });
    const ready = await fetch(`${gw.identity.url}/health/ready`);
    expect(ready.status).toBe(200);

    const taken = await register(gw, `${name[0]!.toUpperCase()}${name.slice(1)}`);
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('USERNAME_EXISTS');
    // nobody's visible name changed
    const stored = await users
      .find({}, { projection: { username: 1 } })
      .sort({ _id: 1 })
      .toArray();
    expect(stored.map((u) => u.username)).toEqual([
      name,
      name.toUpperCase(),
      expect.stringMatching(/^solo_/),
    ]);
    const index = (await users.indexes()).find((i) => i.name === 'usernameKey_1');
    expect(index).toMatchObject({ unique: true });
    await seed.close();
  });
});
