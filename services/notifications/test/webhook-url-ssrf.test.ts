import type { RunningService } from '@lingua/bootstrap';
import { isolatedServiceEnv } from '@lingua/testing';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { httpWebhookSender } from '../src/data-access/http-webhook-sender';
import { call, startNotifications, stopAndDrop, tokenFor } from './support';

jest.setTimeout(60_000);

// Production's setting (private targets refused), through the gateway's webhook registration API.
let service: RunningService;
let gateway: RunningGateway;

beforeAll(async () => {
  const env = { ...isolatedServiceEnv(), WEBHOOK_ALLOW_PRIVATE_URLS: 'false' };
  ({ service } = await startNotifications({}, env));
  gateway = await startGateway(
    loadGatewayConfig({ ...env, GATEWAY_PORT: '0', NOTIFICATIONS_HTTP_URL: service.httpUrl }),
    { logger: service.deps.logger },
  );
});
afterAll(async () => {
  await gateway?.stop();
  await stopAndDrop(service);
});

const register = (url: string, user = tokenFor(service)) =>
  call(service, 'POST', '/api/webhooks', {
    base: gateway.url,
    headers: user.auth,
    body: { url, events: ['achievement.unlocked'] },
  });

describe('webhook URLs that translate to IPv4 or sit in special-purpose ranges', () => {
  it.each([
    ['http://[64:ff9b:1::a00:1]/hook', 'NAT64 (local-use /48) embedding 10.0.0.1', /NAT64.*10\.0\.0\.1/],
    [
      'http://[64:ff9b:1::808:808]/hook',
      'NAT64 (local-use /48) embedding a public address',
      /NAT64.*8\.8\.8\.8/,
    ],
    [
      'http://[64:ff9b::a9fe:a9fe]/hook',
      'NAT64 (well-known /96) embedding 169.254.169.254',
      /NAT64.*169\.254\.169\.254/,
    ],
    ['http://[::10.0.0.1]/hook', 'IPv4-compatible IPv6 embedding 10.0.0.1', /IPv4-compatible.*10\.0\.0\.1/],
    [
      'http://[::8.8.8.8]/hook',
      'IPv4-compatible IPv6 embedding a public address',
      /IPv4-compatible.*8\.8\.8\.8/,
    ],
    ['http://198.18.0.1/hook', 'benchmarking 198.18.0.0/15', /private, loopback or link-local/],
    [
      'http://198.19.255.254/hook',
      'benchmarking 198.18.0.0/15 (upper half)',
      /private, loopback or link-local/,
    ],
    ['http://[2001:2::1]/hook', 'IPv6 benchmarking', /private, loopback or link-local/],
    ['http://[100::1]/hook', 'IPv6 discard prefix', /private, loopback or link-local/],
  ])(
    'When a webhook is registered for %s (%s), Then the gateway answers 400 naming the reason',
    async (url, _what, reason) => {
      const res = await register(url);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toMatch(reason);
    },
  );

  it('When a webhook is registered for a public IPv6 literal, Then it is accepted (the check is not a blanket refusal)', async () => {
    const user = tokenFor(service);
    const res = await register('http://[2606:4700:4700::1111]/hook', user);
    expect(res.status).toBe(201);
    const removed = await call(service, 'DELETE', `/api/webhooks/${res.body.data.id}`, {
      base: gateway.url,
      headers: user.auth,
    });
    expect(removed.status).toBe(200);
  });

  it('When a delivery targets a NAT64 or IPv4-compatible literal, Then the sender refuses it before connecting', async () => {
    const sender = httpWebhookSender({ timeoutMs: 1_000, allowPrivate: false });
    try {
      for (const url of ['http://[64:ff9b:1::7f00:1]/', 'http://[::7f00:1]/', 'http://198.18.0.1/'])
        expect(await sender.send(url, {}, '{}')).toMatchObject({
          statusCode: null,
          error: 'target address is not public',
        });
    } finally {
      sender.close();
    }
  });
});
