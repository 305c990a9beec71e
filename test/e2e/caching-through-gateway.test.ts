import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { clientAddress } from '../platform/gateway-caller';
import { isolatedServiceEnv, uniqueName, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// Conditional reads, as an app's HTTP cache makes them: every GET operation of /openapi.json is read
// through the gateway by its caller, and whatever the answer lets a cache keep (anything but
// `no-store`) carries an ETag that, sent back in If-None-Match while nothing changed, gets 304 with
// no body. The tag names the resource, not the request (Groups A and C carry a timestamp and a
// request id in every body).
jest.setTimeout(180_000);

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(
    isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }),
    { API_KEY_PREFIX: uniqueName('apikey') },
  );
});
afterAll(() => stopAndDrop(stack));

async function register() {
  const u = newCredentials('c');
  const res = await call('POST', '/api/v1/auth/register', { body: u });
  expect(res.status).toBe(201);
  return { ...u, id: res.body.data.userId as string, token: res.body.data.accessToken as string };
}

/** What the walk reads: a learner with a card, a set, an avatar, an image, a subscription, a webhook and a delivery; an admin with an API key. */
async function fixtures() {
  const learner = await register();
  const { token } = learner;

  const users = stack.services.identity.deps.mongo.connection.collection('users');
  const operator = await register();
  await users.updateOne({ _id: operator.id as never }, { $set: { role: 'admin' } });
  const login = await call('POST', '/api/v1/auth/login', {
    body: { email: operator.email, password: operator.password },
  });
  expect(login.body.data.userRole).toBe('admin');
  const adminToken = login.body.data.accessToken as string;

  const card = await call('POST', '/api/flashcards', {
    token,
    body: {
      word: 'window',
      translation: 'Fenster',
      definition: 'an opening in a wall',
      difficultyLevel: 'A1',
    },
  });
  expect(card.status).toBe(200);
  const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'House' } });
  expect(set.status).toBe(201);

  const form = new FormData();
  form.append(
    'avatar',
    new Blob([Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(64)])], {
      type: 'image/png',
    }),
    'me.png',
  );
  const profile = await call('PUT', '/api/users/profile', { raw: form, token });
  expect(profile.status).toBe(200);

  const described = await call('POST', '/api/ai/images/description', { token, body: { word: 'umbrella' } });
  expect(described.status).toBe(200);
  const image = await call('POST', '/api/ai/images', {
    token,
    body: { description: described.body.data.description },
  });
  expect(image.status).toBe(201);

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
  // signed in again once identity applied the purchase, the token carries the subscriber role
  const again = await waitFor(
    async () => {
      const login = await call('POST', '/api/v1/auth/login', {
        body: { email: learner.email, password: learner.password },
      });
      expect(login.body.data.userRole).toBe('subscriber');
      return login;
    },
    { timeoutMs: 20_000, intervalMs: 500 },
  );

  const hook = await call('POST', '/api/webhooks', {
    token,
    body: { url: 'http://127.0.0.1:9/hooks', events: ['achievement.unlocked'] },
  });
  expect(hook.status).toBe(201);
  const hookId = hook.body.data.id as string;
  const test = await call('POST', `/api/webhooks/${hookId}/test`, { token });
  expect(test.status).toBe(202);

  const key = await call('POST', '/api/v1/admin/api-keys', {
    token: adminToken,
    body: { name: 'Partner CMS', client_id: 'partner-cms', scopes: ['flashcards:read'], expires_in_days: 30 },
  });
  expect(key.status).toBe(201);

  const values: Record<string, string> = {
    '/api/flashcards/{id}': card.body.data.id,
    '/api/flashcard-sets/{setId}': set.body.data.id ?? set.body.data.set?.id,
    '/api/users/avatars/{name}': String(profile.body.data.user.profile.avatarUrl).split('/').pop()!,
    '/api/ai/images/{id}': image.body.data.id,
    '/api/v1/admin/subscriptions/{subscription_id}': bought.body.data.subscription_created.subscription_id,
    '/api/v1/subscriptions/check-access/{feature_id}': 'unlimited_dialogue',
    '/api/webhooks/{webhookId}': hookId,
    '/api/webhooks/{webhookId}/deliveries/{deliveryId}': test.body.data.id,
    '/api/v1/admin/api-keys/{keyId}': key.body.data.key_id,
  };
  return { token: again.body.data.accessToken as string, adminToken, values };
}

/** The path with its parameters filled from what the fixtures created; undefined when one is unknown. */
function concrete(template: string, values: Record<string, string>): string | undefined {
  let unknown = false;
  const path = template.replace(/\{(\w+)\}/g, (param, _name: string, at: number) => {
    // the value belongs to the shortest documented template that ends with this parameter
    const owner = template.slice(0, at) + param;
    const value = values[owner] ?? values[template];
    if (value === undefined) unknown = true;
    return encodeURIComponent(value ?? '');
  });
  return unknown ? undefined : path;
}

/**
 * A conditional GET as an app's HTTP cache sends it (URLSession, OkHttp): If-None-Match alone. Not
 * fetch: the Fetch standard adds `Cache-Control: no-cache` to any request carrying If-None-Match,
 * which asks every server for a full answer.
 */
function revalidate(path: string, token: string, etag: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${stack.gateway.url}${path}`,
      {
        headers: {
          authorization: `Bearer ${token}`,
          'if-none-match': etag,
          'x-forwarded-for': clientAddress(),
        },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode!, bytes }));
      },
    );
    req.on('error', reject);
  });
}

describe('conditional reads through the gateway', () => {
  it('When a client sends back the ETag of any cacheable GET of /openapi.json, Then the gateway answers 304 with no body while nothing changed', async () => {
    const doc = (await (await fetch(`${stack.gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const { token, adminToken, values } = await fixtures();
    // the test delivery was attempted (its log is what the delivery read returns)
    await waitFor(
      async () => {
        const path = concrete('/api/webhooks/{webhookId}/deliveries/{deliveryId}', values)!;
        expect((await call('GET', path, { token })).body.data.attempts).toBeGreaterThan(0);
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );

    const wrong: string[] = [];
    const uncacheable: string[] = [];
    let revalidated = 0;
    const reads = Object.entries(doc.paths)
      .filter(([, ops]) => ops.get)
      .map(([p]) => p);
    expect(reads.length).toBeGreaterThan(30);
    for (const template of reads.sort()) {
      const path = concrete(template, values);
      if (!path) {
        wrong.push(`${template}: no value for its parameters`);
        continue;
      }
      // the admin's own reads with the admin's token, the rest as the learner
      const as = template.startsWith('/api/v1/admin/') ? adminToken : token;
      const first = await call('GET', path, { token: as, headers: { 'accept-encoding': 'identity' } });
      if (first.status !== 200) {
        wrong.push(`${template}: ${first.status}`);
        continue;
      }
      const cacheControl = first.headers.get('cache-control') ?? '';
      if (/no-store/.test(cacheControl)) {
        uncacheable.push(template);
        continue;
      }
      const etag = first.headers.get('etag');
      if (!etag) {
        wrong.push(`${template}: cacheable (${cacheControl || 'no Cache-Control'}) but no ETag`);
        continue;
      }
      const again = await revalidate(path, as, etag);
      if (again.status !== 304) wrong.push(`${template}: If-None-Match ${etag} → ${again.status}`);
      else if (again.bytes !== 0) wrong.push(`${template}: 304 with a body`);
      else revalidated++;
    }
    process.stdout.write(
      `conditional reads: ${revalidated} of ${reads.length} GET operations revalidated with 304; not cacheable (no-store): ${uncacheable.join(', ') || 'none'}\n`,
    );
    expect(wrong).toEqual([]);
    expect(revalidated).toBeGreaterThan(reads.length / 2);
  });
});
