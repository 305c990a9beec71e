import { randomBytes } from 'node:crypto';
import {
  ASSERTION_AUDIENCES,
  ASSERTION_HEADER,
  type AssertionAudience,
  createAccessTokens,
  createAssertionSigner,
  devAssertionKey,
} from '@lingua/auth';
import { isolatedServiceEnv, TestClock } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// The trust model (docs/adr/0001-internal-assertions.md) on the running services: each one accepts
// its caller only from the gateway's assertion signed with its own key, and refuses a client token
// (even a valid one), an assertion for another service, an expired one, and one signed with a key it
// should not accept. Keys here are fresh random ones, set through the environment as in production.

const secret = () => randomBytes(32).toString('hex');
const KEYS = Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [a, secret()])) as Record<
  AssertionAudience,
  string
>;
const JWT_SECRET = secret();

/** One route of each service that needs a signed-in caller. */
const PROTECTED: Record<AssertionAudience, string> = {
  identity: '/api/users/profile',
  flashcards: '/api/flashcards/due',
  subscriptions: '/api/v1/subscriptions/history',
  ai: '/api/ai/quota',
  notifications: '/api/notifications',
};

let stack: InProcessStack;
const tokens = createAccessTokens(JWT_SECRET);
let token: string;

beforeAll(async () => {
  const env = isolatedServiceEnv({
    JWT_SECRET,
    ...Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [`${a.toUpperCase()}_ASSERTION_KEY`, KEYS[a]])),
  });
  stack = await startInProcessStack(env);
  const username = `assert_${Date.now().toString(36)}`;
  const res = await fetch(`${stack.gateway.url}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${username}@example.com`, password: 'Secret123', username }),
  });
  expect(res.status).toBe(201);
  token = ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  for (const s of Object.values(stack?.services ?? {}))
    await s.deps.mongo.connection.dropDatabase().catch(() => undefined);
});

const direct = (service: AssertionAudience, headers: Record<string, string>) =>
  fetch(`${stack.services[service].httpUrl}${PROTECTED[service]}`, { headers });

/** Status and error code; Group B (flashcards) answers a plain-text error, the others a code. */
const refusal = async (res: Response) => {
  const error = ((await res.json()) as { error?: string | { code?: string } }).error;
  return { status: res.status, code: typeof error === 'string' ? 'TOKEN_INVALID' : error?.code };
};

describe.each(ASSERTION_AUDIENCES)('%s trusts only its own assertion', (service) => {
  it('When the call comes through the gateway, Then the service knows the caller', async () => {
    const res = await fetch(`${stack.gateway.url}${PROTECTED[service]}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
  });

  it('When a valid client token (even an admin one) reaches the service directly, Then 401', async () => {
    const admin = tokens.sign({
      sub: 'admin-1',
      email: 'a@example.com',
      username: 'admin',
      role: 'admin',
      subscription_status: 'active',
    }).token;
    for (const t of [token, admin])
      expect((await direct(service, { authorization: `Bearer ${t}` })).status).toBe(401);
  });

  it('When the assertion is for another service, from a key it must not accept, or expired, Then 401', async () => {
    const claims = tokens.verify(token);
    const other = ASSERTION_AUDIENCES.find((a) => a !== service)!;
    const gatewaySigner = createAssertionSigner(KEYS);
    // what a compromised `other` pod could make: its own key, this service's audience
    const compromised = createAssertionSigner({ ...KEYS, [service]: KEYS[other] });
    // the development keys everyone can read in the repository
    const dev = createAssertionSigner(
      Object.fromEntries(ASSERTION_AUDIENCES.map((a) => [a, devAssertionKey(a)])) as typeof KEYS,
    );
    const twoMinutesAgo = createAssertionSigner(KEYS, {
      clock: new TestClock(new Date(Date.now() - 120_000)),
    });
    const refused = {
      'another service': gatewaySigner.sign(other, claims),
      "another service's key": compromised.sign(service, claims),
      'the development key': dev.sign(service, claims),
      expired: twoMinutesAgo.sign(service, claims),
    };
    for (const [why, assertion] of Object.entries(refused))
      expect({ why, ...(await refusal(await direct(service, { [ASSERTION_HEADER]: assertion }))) }).toEqual({
        why,
        status: 401,
        // the envelope of the route's group: the catalogue code or the spec's name
        code: expect.stringMatching(/^(AUTH001|TOKEN_INVALID)$/),
      });
    // the same claims, signed as the gateway signs them: accepted (so the refusals above are the key's doing)
    expect((await direct(service, { [ASSERTION_HEADER]: gatewaySigner.sign(service, claims) })).status).toBe(
      200,
    );
  });
});
