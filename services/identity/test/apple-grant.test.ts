import { APPLE_AUD, APPLE_ISS, bearer, type Harness, newUser, startIdentity } from './harness';
import { waitFor } from '@lingua/testing';
import { startAppleTokenStandIn } from './apple-token-stand-in';

// Apple asks apps that delete accounts to revoke the user's Sign in with Apple grant; that needs the
// refresh token obtained by redeeming the authorization code at sign-in
jest.setTimeout(60_000);

let h: Harness;
let apple: Awaited<ReturnType<typeof startAppleTokenStandIn>>;
beforeAll(async () => {
  apple = await startAppleTokenStandIn(APPLE_AUD);
  // the pending-erasures sweep every second (it takes records not tried for that long, by the test clock)
  h = await startIdentity({ ...apple.env, IDENTITY_ERASURE_RETRY_MS: '1000' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await apple?.close();
});

const nowS = () => Math.floor(h.clock.now().getTime() / 1000);
const subject = () => `${Date.now()}.${Math.random().toString(36).slice(2)}`;
const appleSignIn = async (sub: string, authorizationCode?: string) =>
  h.post('/api/v1/auth/apple', {
    identityToken: await h.jwks.sign(
      { sub, email: newUser().email, email_verified: true },
      { iss: APPLE_ISS, aud: APPLE_AUD, iat: nowS(), expSeconds: nowS() + 600 },
    ),
    userIdentifier: sub,
    ...(authorizationCode && { authorizationCode }),
  });

describe('Sign in with Apple: the grant', () => {
  it('When an Apple user signs in with an authorization code and later deletes the account, Then the code is redeemed once and the grant revoked', async () => {
    const code = apple.issueCode();
    const signIn = await appleSignIn(subject(), code);
    expect(signIn.status).toBe(200);
    expect(apple.exchanged).toContain(code);

    const deleted = await h.request('DELETE', '/api/users/account', {
      headers: bearer(signIn.body.data.accessToken),
      body: {},
    });
    expect(deleted.status).toBe(200);
    expect(apple.revoked).toContain(`rt-${code}`);
  });

  it('When Apple refuses the code (already used, or Apple down), Then the user still signs in; deletion then has nothing to revoke', async () => {
    const sub = subject();
    const refused = await appleSignIn(sub, 'never-issued-code');
    expect(refused.status).toBe(200);

    apple.failNextWith(503);
    const down = await appleSignIn(sub, apple.issueCode());
    expect(down.status).toBe(200);

    const revokedBefore = apple.revoked.length;
    const deleted = await h.request('DELETE', '/api/users/account', {
      headers: bearer(down.body.data.accessToken),
      body: {},
    });
    expect(deleted.status).toBe(200);
    expect(apple.revoked).toHaveLength(revokedBefore);
  });

  it('When Apple is down while the account is deleted, Then the sweeper revokes the grant once Apple answers, and the same Apple account signs up anew', async () => {
    const sub = subject();
    const code = apple.issueCode();
    const signIn = await appleSignIn(sub, code);
    expect(signIn.status).toBe(200);

    apple.failNextWith(503);
    const deleted = await h.request('DELETE', '/api/users/account', {
      headers: bearer(signIn.body.data.accessToken),
      body: {},
    });
    // the deletion is done; the clean-up step that failed is the sweeper's to finish
    expect(deleted.status).toBe(200);
    expect(apple.revoked).not.toContain(`rt-${code}`);

    await waitFor(
      () => {
        h.clock.advance(2_000); // the record is due again once it was not tried for an interval
        expect(apple.revoked).toContain(`rt-${code}`);
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    const again = await appleSignIn(sub);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ isNewUser: true });
    expect(again.body.data.userId).not.toBe(signIn.body.data.userId);
  });

  it('When no authorization code is sent, Then Apple is not called', async () => {
    const before = apple.exchanged.length;
    expect((await appleSignIn(subject())).status).toBe(200);
    expect(apple.exchanged).toHaveLength(before);
  });
});
