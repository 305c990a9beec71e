import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apnsSender } from '../src/data-access/push/apns.sender';
import { fcmSender } from '../src/data-access/push/fcm.sender';
import { reliablePushSender } from '../src/data-access/push/reliable';
import type { PushMessage } from '../src/domain/push-sender';
import { startApnsStandIn } from './support/apns-stand-in';
import { startFcmStandIn } from './support/fcm-stand-in';

// The push adapters against local stand-ins of APNs (HTTP/2) and FCM v1 (+ its OAuth2 token
// endpoint) over real sockets: what each provider answer becomes, the provider credentials, the
// retries and the concurrency bound.

const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }); // what a .p8 holds
const p8 = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const apnsPublic = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const account = {
  project_id: 'lingua-test',
  client_email: 'push@lingua-test.iam.gserviceaccount.com',
  private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
};
const fcmPublic = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const APNS = { keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'app.lingua.ios' };
const retries = { maxAttempts: 3, concurrency: 8, baseDelayMs: 10, maxDelayMs: 50, maxWaitMs: 5_000 };
const iosToken = (n: number) => n.toString(16).padStart(64, '0');
const msg = (platform: 'ios' | 'android', token: string): PushMessage => ({
  platform,
  token,
  title: 'Time to study',
  body: '12 cards are due',
  collapseKey: 'study_reminder',
  data: { type: 'study_reminder' },
});

describe('APNs sender against an HTTP/2 APNs stand-in', () => {
  let clock = Date.now();
  const now = () => clock;
  let apns: Awaited<ReturnType<typeof startApnsStandIn>>;
  let raw: ReturnType<typeof apnsSender>;
  beforeAll(async () => {
    apns = await startApnsStandIn({ publicKeyPem: apnsPublic, ...APNS, now });
  });
  beforeEach(() => {
    raw = apnsSender({ url: apns.url, key: p8, ...APNS, timeoutMs: 5_000, now });
  });
  afterEach(() => raw.close());
  afterAll(() => apns.close());

  it('When APNs answers 200, Then the push is sent with topic, push type, collapse id and the alert, signed by the .p8 key', async () => {
    await expect(reliablePushSender(raw, retries).send(msg('ios', iosToken(1)))).resolves.toEqual({
      outcome: 'sent',
    });
    const seen = apns.requests.find((r) => r.token === iosToken(1))!;
    expect(seen.headers['apns-topic']).toBe(APNS.topic);
    expect(seen.headers['apns-push-type']).toBe('alert');
    expect(seen.headers['apns-collapse-id']).toBe('study_reminder');
    expect(seen.payload.aps.alert).toEqual({ title: 'Time to study', body: '12 cards are due' });
    expect(seen.payload.type).toBe('study_reminder');
  });

  it('When APNs answers 400 BadDeviceToken or 410 Unregistered, Then the token is reported invalid or unregistered after one attempt', async () => {
    apns.script(iosToken(2), { status: 400, reason: 'BadDeviceToken' });
    apns.script(iosToken(3), { status: 410, reason: 'Unregistered', timestamp: 1_790_000_000_000 });
    const sender = reliablePushSender(raw, retries);
    await expect(sender.send(msg('ios', iosToken(2)))).resolves.toMatchObject({
      outcome: 'invalid',
      reason: 'BadDeviceToken',
    });
    // Apple's timestamp goes to identity's RemoveDevice (a token registered again after it stays)
    await expect(sender.send(msg('ios', iosToken(3)))).resolves.toEqual({
      outcome: 'unregistered',
      reason: 'Unregistered',
      refusedAt: 1_790_000_000_000,
    });
    expect(apns.requests.filter((r) => [iosToken(2), iosToken(3)].includes(r.token))).toHaveLength(2);
  });

  it('When APNs answers 429 then 500, Then the push is retried and sent; 500 on every attempt gives up after maxAttempts with retry', async () => {
    apns.script(
      iosToken(4),
      { status: 429, reason: 'TooManyRequests' },
      { status: 500, reason: 'InternalServerError' },
    );
    apns.script(
      iosToken(5),
      ...Array.from({ length: 5 }, () => ({ status: 500, reason: 'InternalServerError' })),
    );
    const sender = reliablePushSender(raw, retries);
    await expect(sender.send(msg('ios', iosToken(4)))).resolves.toEqual({ outcome: 'sent' });
    expect(apns.requests.filter((r) => r.token === iosToken(4))).toHaveLength(3);
    await expect(sender.send(msg('ios', iosToken(5)))).resolves.toMatchObject({
      outcome: 'retry',
      reason: 'InternalServerError',
    });
    expect(apns.requests.filter((r) => r.token === iosToken(5))).toHaveLength(retries.maxAttempts);
  });

  it('When sends follow each other, Then one provider token serves them and a new one is signed after 50 minutes, before Apple’s hour', async () => {
    const sender = reliablePushSender(raw, retries);
    await sender.send(msg('ios', iosToken(6)));
    await sender.send(msg('ios', iosToken(7)));
    clock += 51 * 60_000;
    await sender.send(msg('ios', iosToken(8)));
    const seen = [6, 7, 8].map((n) => apns.requests.find((r) => r.token === iosToken(n))!);
    // ES256 signatures are randomised: the same string is the same signed token
    expect(seen[1]!.jwt).toBe(seen[0]!.jwt);
    expect(seen[2]!.jwt).not.toBe(seen[0]!.jwt);
    expect(seen[2]!.jwtIssuedAt - seen[0]!.jwtIssuedAt).toBeGreaterThanOrEqual(51 * 60);
  });

  it('When APNs answers 403 ExpiredProviderToken, Then a new provider token is signed and the push is sent with it', async () => {
    const strict = await startApnsStandIn({
      publicKeyPem: apnsPublic,
      ...APNS,
      now,
      maxTokenAgeSeconds: 20 * 60,
    });
    const sender = apnsSender({ url: strict.url, key: p8, ...APNS, timeoutMs: 5_000, now });
    try {
      await sender.send(msg('ios', iosToken(20)));
      clock += 30 * 60_000; // the cached token is 30 min old: ours would keep it, this APNs does not
      await expect(reliablePushSender(sender, retries).send(msg('ios', iosToken(21)))).resolves.toEqual({
        outcome: 'sent',
      });
      const [first, second] = strict.requests;
      expect(strict.requests.map((r) => r.token)).toEqual([iosToken(20), iosToken(21)]);
      expect(second!.jwtIssuedAt - first!.jwtIssuedAt).toBeGreaterThanOrEqual(30 * 60);
    } finally {
      sender.close();
      await strict.close();
    }
  });

  it('When APNs speaks TLS (HTTP/2 by ALPN, as Apple does), Then the push is sent over it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apns-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost',
        ],
        { stdio: 'ignore' },
      );
      const tls = {
        key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
        cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
      };
      const secure = await startApnsStandIn({ publicKeyPem: apnsPublic, ...APNS, now, tls });
      const sender = apnsSender({ url: secure.url, key: p8, ...APNS, timeoutMs: 5_000, now, ca: tls.cert });
      try {
        expect(secure.url).toMatch(/^https:/);
        await expect(sender.send(msg('ios', iosToken(30)))).resolves.toEqual({ outcome: 'sent' });
        expect(secure.requests.map((r) => r.token)).toEqual([iosToken(30)]);
      } finally {
        sender.close();
        await secure.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('When the provider token is signed by another key, Then APNs refuses it (403) and the outcome is failed, the device token kept', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const wrong = apnsSender({ url: apns.url, key: other, ...APNS, timeoutMs: 5_000, now });
    try {
      await expect(reliablePushSender(wrong, retries).send(msg('ios', iosToken(9)))).resolves.toEqual({
        outcome: 'failed',
        reason: 'InvalidProviderToken',
      });
      expect(apns.refused).toHaveLength(1);
    } finally {
      wrong.close();
    }
  });
});

describe('FCM v1 sender against an FCM stand-in and its OAuth2 token endpoint', () => {
  let fcm: Awaited<ReturnType<typeof startFcmStandIn>>;
  let raw: ReturnType<typeof fcmSender>;
  beforeAll(async () => {
    fcm = await startFcmStandIn({
      publicKeyPem: fcmPublic,
      clientEmail: account.client_email,
      projectId: account.project_id,
    });
  });
  beforeEach(() => {
    raw = fcmSender({ url: fcm.url, tokenUrl: fcm.tokenUrl, serviceAccount: account, timeoutMs: 5_000 });
  });
  afterAll(() => fcm.close());

  it('When FCM answers 200, Then the push is sent with the collapse key, and one access token serves concurrent sends', async () => {
    const before = fcm.tokenRequests;
    const sender = reliablePushSender(raw, retries);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sender.send(msg('android', `fcm-token-a${i}`))),
    );
    expect(results.every((r) => r.outcome === 'sent')).toBe(true);
    expect(fcm.tokenRequests - before).toBe(1);
    const seen = fcm.requests.find((r) => r.token === 'fcm-token-a0')!;
    expect(seen.message.notification).toEqual({ title: 'Time to study', body: '12 cards are due' });
    expect(seen.message.android?.collapse_key).toBe('study_reminder');
    expect(new Set(fcm.requests.map((r) => r.accessToken)).size).toBe(1);
  });

  it('When FCM answers 404 UNREGISTERED or 400 INVALID_ARGUMENT, Then the token is reported unregistered or invalid after one attempt', async () => {
    fcm.script('fcm-gone', { status: 404, errorCode: 'UNREGISTERED' });
    fcm.script('fcm-bad', { status: 400, errorCode: 'INVALID_ARGUMENT' });
    const sender = reliablePushSender(raw, retries);
    await expect(sender.send(msg('android', 'fcm-gone'))).resolves.toMatchObject({ outcome: 'unregistered' });
    await expect(sender.send(msg('android', 'fcm-bad'))).resolves.toMatchObject({ outcome: 'invalid' });
    expect(fcm.requests.filter((r) => ['fcm-gone', 'fcm-bad'].includes(r.token))).toHaveLength(2);
  });

  it('When FCM answers 429 with Retry-After: 1, Then the retry waits at least that second and is sent', async () => {
    fcm.script('fcm-throttled', { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfter: '1' });
    await expect(reliablePushSender(raw, retries).send(msg('android', 'fcm-throttled'))).resolves.toEqual({
      outcome: 'sent',
    });
    const [first, second] = fcm.requests.filter((r) => r.token === 'fcm-throttled');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
  });

  it('When FCM answers 503 on every attempt, Then it gives up after maxAttempts with retry; a Retry-After beyond maxWaitMs is not waited for', async () => {
    fcm.script('fcm-down', ...Array.from({ length: 5 }, () => ({ status: 503 })));
    const sender = reliablePushSender(raw, retries);
    await expect(sender.send(msg('android', 'fcm-down'))).resolves.toMatchObject({ outcome: 'retry' });
    expect(fcm.requests.filter((r) => r.token === 'fcm-down')).toHaveLength(retries.maxAttempts);
    fcm.script('fcm-later', { status: 503, retryAfter: '3600' });
    const started = Date.now();
    await expect(sender.send(msg('android', 'fcm-later'))).resolves.toEqual({
      outcome: 'retry',
      reason: 'UNAVAILABLE',
      retryAfterMs: 3_600_000,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('When the access token is about to expire and many sends wait, Then one new token is fetched for all of them', async () => {
    let clock = Date.now();
    const sender = reliablePushSender(
      fcmSender({
        url: fcm.url,
        tokenUrl: fcm.tokenUrl,
        serviceAccount: account,
        timeoutMs: 5_000,
        now: () => clock,
      }),
      retries,
    );
    await sender.send(msg('android', 'fcm-renew-0'));
    const before = fcm.tokenRequests;
    clock += 56 * 60_000; // the 1-hour token is within its 5-minute renewal margin
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sender.send(msg('android', `fcm-renew-${i + 1}`))),
    );
    expect(results.every((r) => r.outcome === 'sent')).toBe(true);
    expect(fcm.tokenRequests - before).toBe(1);
  });

  it('When the access token stops being accepted (401), Then a new one is fetched and the push is sent', async () => {
    const sender = reliablePushSender(raw, retries);
    await sender.send(msg('android', 'fcm-before'));
    const before = fcm.tokenRequests;
    fcm.revokeAll();
    await expect(sender.send(msg('android', 'fcm-after'))).resolves.toEqual({ outcome: 'sent' });
    expect(fcm.tokenRequests - before).toBe(1);
  });
});

describe('per-provider concurrency bound', () => {
  it('When 40 pushes go to each provider at once with a bound of 4, Then no provider sees more than 4 in flight', async () => {
    const apns = await startApnsStandIn({ publicKeyPem: apnsPublic, ...APNS, delayMs: 50 });
    const fcm = await startFcmStandIn({
      publicKeyPem: fcmPublic,
      clientEmail: account.client_email,
      projectId: account.project_id,
      delayMs: 50,
    });
    const rawApns = apnsSender({ url: apns.url, key: p8, ...APNS, timeoutMs: 5_000 });
    const bounded = { ...retries, concurrency: 4 };
    const ios = reliablePushSender(rawApns, bounded);
    const android = reliablePushSender(
      fcmSender({ url: fcm.url, tokenUrl: fcm.tokenUrl, serviceAccount: account, timeoutMs: 5_000 }),
      bounded,
    );
    try {
      const started = Date.now();
      const results = await Promise.all([
        ...Array.from({ length: 40 }, (_, i) => ios.send(msg('ios', iosToken(100 + i)))),
        ...Array.from({ length: 40 }, (_, i) => android.send(msg('android', `fcm-bulk-${i}`))),
      ]);
      const elapsed = Date.now() - started;
      expect(results.every((r) => r.outcome === 'sent')).toBe(true);
      expect(apns.peakInFlight).toBe(4);
      expect(fcm.peakInFlight).toBe(4);
      // 40 / 4 = 10 rounds of 50 ms per provider, side by side
      expect(elapsed).toBeGreaterThanOrEqual(450);
      process.stdout.write(
        `[push] 80 pushes, bound 4 per provider: APNs peak ${apns.peakInFlight}, FCM peak ${fcm.peakInFlight}, ${elapsed} ms\n`,
      );
    } finally {
      rawApns.close();
      await Promise.all([apns.close(), fcm.close()]);
    }
  });
});
