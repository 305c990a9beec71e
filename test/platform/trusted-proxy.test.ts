import { Agent, request } from 'undici';
import { isolatedServiceEnv, startNginxIngress, uniqueName } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// Behind a real ingress (nginx, appending the peer address to X-Forwarded-For), each client is
// limited on its own address: the gateway trusts the ingress (TRUST_PROXY) and nothing a client
// writes in X-Forwarded-For itself; the services get the address the gateway derived. Each client
// connects from its own loopback address (127.0.0.x), as real clients come from their own.

let stack: InProcessStack;
let ingress: Awaited<ReturnType<typeof startNginxIngress>>;
const agents: Agent[] = [];

/** A loopback address of this run's own (counters of earlier runs may still be in Redis). */
const byte = () => 2 + Math.floor(Math.random() * 250);
const freshAddress = () => `127.${byte()}.${byte()}.${byte()}`;

/** A client on its own source address. */
function clientAt(address = freshAddress()) {
  const agent = new Agent({ localAddress: address });
  agents.push(agent);
  return async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await request(`${ingress.url}${path}`, {
      method: method as 'GET',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...options.headers },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
    await res.body.dump();
    return res.statusCode;
  };
}

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv(), {
    // only nginx (which connects from 127.0.0.1) may say who the client is
    TRUST_PROXY: '127.0.0.1',
    // the gateway's own sign-in limit out of the way: identity's per-address limit (5 a minute) is
    // what shows whether the services, too, see each client's own address
    RATE_LIMIT_LOGIN_PER_MINUTE: '1000',
    RATE_LIMIT_FREE_PER_HOUR: '3',
    RATE_LIMIT_PREFIX: uniqueName('rl'),
  });
  ingress = await startNginxIngress(stack.gateway.url);
}, 90_000);

afterAll(async () => {
  for (const agent of agents) await agent.close();
  await ingress?.dispose();
  await stack?.stop();
  for (const s of Object.values(stack?.services ?? {}))
    await s.deps.mongo.connection.dropDatabase().catch(() => undefined);
});

// unknown addresses: no account gets locked, every attempt is a plain 401 until the limit
const login = (client: ReturnType<typeof clientAt>, headers: Record<string, string> = {}) =>
  client('POST', '/api/v1/auth/login', {
    body: { email: `${uniqueName('nobody')}@example.com`, password: 'Wrong1234' },
    headers,
  });
const randomIp = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

/**
 * Attempts until the first 429. Identity counts per address in fixed one-minute windows: 5 attempts
 * in one window, the 6th is refused; when the attempts straddle a window's end, the count starts
 * again and the refusal comes up to 5 attempts later. A limit that moved would never refuse.
 */
async function attemptsUntilLimited(attempt: () => Promise<number>) {
  const statuses: number[] = [];
  while (statuses.length < 11 && statuses.at(-1) !== 429) statuses.push(await attempt());
  return statuses;
}

it('When one client spends its sign-in attempts, Then it alone is limited; another client still signs in', async () => {
  const a = clientAt();
  const b = clientAt();
  const statuses = await attemptsUntilLimited(() => login(a));
  expect(statuses.at(-1)).toBe(429);
  expect(statuses.length).toBeGreaterThanOrEqual(6);
  expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
  expect(await login(b)).toBe(401);
}, 90_000); // up to 12 sign-ins, each a bcrypt comparison: seconds apiece on a loaded machine

it('When a client writes its own X-Forwarded-For, Then the limit does not move', async () => {
  const c = clientAt();
  const statuses = await attemptsUntilLimited(() => login(c, { 'x-forwarded-for': randomIp() }));
  expect(statuses.at(-1)).toBe(429);
  expect(statuses.length).toBeGreaterThanOrEqual(6);
  expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
}, 90_000);

it('When guests share the ingress, Then each has its own hourly budget, whatever it claims to be', async () => {
  const d = clientAt();
  const e = clientAt();
  const plans = (client: ReturnType<typeof clientAt>, forged?: string) =>
    client('GET', '/api/v1/subscriptions/plans', { headers: forged ? { 'x-forwarded-for': forged } : {} });
  const spent = [];
  for (let i = 0; i < 4; i++) spent.push(await plans(d, randomIp()));
  expect(spent).toEqual([200, 200, 200, 429]);
  expect(await plans(e)).toBe(200);
});
