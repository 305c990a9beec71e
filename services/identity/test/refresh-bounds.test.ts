import { bearer, type Harness, ipHeader, newUser, startIdentity } from './harness';

const DAY = 24 * 3600_000;
const HISTORY = 5;

let h: Harness;
beforeAll(async () => {
  h = await startIdentity({
    IDENTITY_REFRESH_HISTORY: String(HISTORY),
    IDENTITY_REFRESH_MAX_LIFETIME_DAYS: '90',
  });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function signedIn() {
  const u = newUser();
  const reg = await h.post('/api/v1/auth/register', u, ipHeader());
  expect(reg.status).toBe(201);
  return { userId: reg.body.data.userId as string, refreshToken: reg.body.data.refreshToken as string };
}

const refresh = (token: string) => h.post('/api/v1/auth/refresh', undefined, bearer(token));
const familyOf = (userId: string) =>
  h.service.deps.mongo.connection
    .collection<{
      previousHashes: string[];
      accessTokens: unknown[];
      expiresAt: Date;
      absoluteExpiresAt: Date;
    }>('refresh_families')
    .findOne({ userId });

describe('refresh-token families stay bounded', () => {
  it('When a sign-in is refreshed 100 times, Then its stored history stays at the configured size and recent reuse is still caught', async () => {
    const s = await signedIn();
    const tokens = [s.refreshToken];
    for (let i = 0; i < 100; i++) {
      const r = await refresh(tokens.at(-1)!);
      expect(r.status).toBe(200);
      tokens.push(r.body.data.refreshToken as string);
    }
    const family = await familyOf(s.userId);
    expect(family?.previousHashes).toHaveLength(HISTORY);
    expect(family?.accessTokens).toHaveLength(HISTORY);

    // a token replaced long ago is no longer known: refused as invalid, the sign-in lives on
    const ancient = await refresh(tokens[0]!);
    expect(ancient.status).toBe(401);
    expect(ancient.body.error.code).toBe('TOKEN_INVALID');
    // a recently replaced one is reuse: the whole sign-in is revoked
    const reuse = await refresh(tokens.at(-2)!);
    expect(reuse.body.error.code).toBe('TOKEN_BLACKLISTED');
    expect((await refresh(tokens.at(-1)!)).body.error.code).toBe('TOKEN_BLACKLISTED');
  });

  it('When a sign-in is refreshed regularly, Then it still ends at its hard expiry, which rotations do not move', async () => {
    const s = await signedIn();
    const absolute = (await familyOf(s.userId))!.absoluteExpiresAt.getTime();
    expect(absolute).toBe(h.clock.now().getTime() + 90 * DAY);
    let token = s.refreshToken;
    // every 29 days, within the 30-day token lifetime
    for (let i = 0; i < 3; i++) {
      h.clock.advance(29 * DAY);
      const r = await refresh(token);
      expect(r.status).toBe(200);
      token = r.body.data.refreshToken as string;
    }
    const family = (await familyOf(s.userId))!;
    expect(family.absoluteExpiresAt.getTime()).toBe(absolute);
    // the last token got what was left of the sign-in (3 days), not another 30
    expect(family.expiresAt.getTime()).toBe(absolute);

    h.clock.advance(3 * DAY + 1_000);
    const late = await refresh(token);
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('TOKEN_EXPIRED');
  });

  it('When a sign-in from before the hard expiry existed is refreshed past it, Then it is refused as expired', async () => {
    const s = await signedIn();
    const families = h.service.deps.mongo.connection.collection('refresh_families');
    // as stored before: no absoluteExpiresAt, a sliding expiry far ahead
    await families.updateOne(
      { userId: s.userId },
      {
        $unset: { absoluteExpiresAt: '' },
        $set: { expiresAt: new Date(h.clock.now().getTime() + 400 * DAY) },
      },
    );
    h.clock.advance(90 * DAY + 1_000);
    const r = await refresh(s.refreshToken);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('TOKEN_EXPIRED');
  });
});
