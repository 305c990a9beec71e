import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from './gateway-caller';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

// A partner's endpoint that receives every account's events (scope all) may only be kept by an
// admin. Operators grant and take the admin role in identity's database; once taken, the endpoint
// must stop receiving other accounts' events, whatever the owner's still-valid token says.
jest.setTimeout(120_000);

let stack: InProcessStack;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ type: string; data: { userId?: string } }> = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  stack = await startInProcessStack(
    isolatedServiceEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_OWNER_ROLE_CACHE_MS: '0' }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

const gateway = gatewayCaller(() => stack.gateway.url);
const call = (method: string, path: string, body?: unknown, token?: string) =>
  gateway(method, path, { body, ...(token && { token }) });

async function registered() {
  const user = newCredentials('w');
  const res = await call('POST', '/api/v1/auth/register', user);
  expect(res.status).toBe(201);
  return { ...user, id: res.body.data.userId as string };
}

/** What an operator does: the role written in identity's database. */
const setRole = (userId: string, role: 'admin' | 'user') =>
  stack.services.identity.deps.mongo.connection
    .collection('users')
    .updateOne({ _id: userId as never }, { $set: { role } });

const eventsAbout = (userId: string) => received.filter((e) => e.data.userId === userId);

describe("scope-all webhooks follow their owner's current role", () => {
  it("When the admin who registered a scope-all endpoint is demoted, Then other accounts' events stop reaching it and the endpoint shows why", async () => {
    const owner = await registered();
    await setRole(owner.id, 'admin');
    const login = await call('POST', '/api/v1/auth/login', { email: owner.email, password: owner.password });
    expect(login.body.data.userRole).toBe('admin');
    const token = login.body.data.accessToken as string;
    const created = await call(
      'POST',
      '/api/webhooks',
      { url: receiverUrl, events: ['user.created'], scope: 'all' },
      token,
    );
    expect(created.status).toBe(201);
    const endpointId = created.body.data.id as string;

    // while an admin: another account's sign-up reaches the endpoint
    const before = await registered();
    await waitFor(() => expect(eventsAbout(before.id)).toHaveLength(1), { timeoutMs: 30_000 });

    await setRole(owner.id, 'user');
    const after = await registered();
    // the endpoint is disabled by that event, with the reason the owner can read
    await waitFor(
      async () => {
        const res = await call('GET', `/api/webhooks/${endpointId}`, undefined, token);
        expect(res.body.data).toMatchObject({ enabled: false, disabledReason: 'owner_not_admin' });
      },
      { timeoutMs: 30_000 },
    );
    // and no delivery of that event exists or arrived (the disabling is the later signal)
    const deliveries = await call('GET', `/api/webhooks/${endpointId}/deliveries`, undefined, token);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.deliveries).toHaveLength(1);
    expect(eventsAbout(after.id)).toEqual([]);
  });
});
