import http2 from 'node:http2';
import { importPKCS8, SignJWT } from 'jose';
import { parseRetryAfterMs, type PushMessage, type PushOutcome } from '../../domain/push-sender';

export interface ApnsSettings {
  /** https://api.push.apple.com (production) or https://api.sandbox.push.apple.com (development builds). */
  url: string;
  /** The .p8 signing key's contents (PKCS#8 PEM) from the Apple developer account. */
  key: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id (apns-topic). */
  topic: string;
  timeoutMs: number;
  now?: () => number;
  /** Trusted CA certificates (PEM) instead of the system's: tests only, for a TLS stand-in. */
  ca?: string;
}

/** Apple refuses a provider token older than an hour and a new one more often than every 20 minutes. */
const JWT_RENEW_AFTER_MS = 50 * 60_000;

/**
 * APNs over HTTP/2 with token-based authentication, one attempt per call: node:http2 and jose
 * (services/notifications/README.md says why not a client package). One HTTP/2 session per
 * provider, reopened when the server closes it (GOAWAY, idle, network); requests multiplex on it.
 */
export function apnsSender(settings: ApnsSettings) {
  const now = settings.now ?? Date.now;
  const keyPromise = importPKCS8(settings.key, 'ES256');
  let jwt: { value: Promise<string>; at: number } | undefined;
  let session: http2.ClientHttp2Session | undefined;

  function providerToken(): Promise<string> {
    if (!jwt || now() - jwt.at >= JWT_RENEW_AFTER_MS) {
      const at = now();
      const value = keyPromise.then((key) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: settings.keyId })
          .setIssuer(settings.teamId)
          .setIssuedAt(Math.floor(at / 1000))
          .sign(key),
      );
      jwt = { value, at };
      value.catch(() => (jwt = undefined)); // a failed signing is not cached
    }
    return jwt.value;
  }

  function connection(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(settings.url, settings.ca ? { ca: settings.ca } : {});
    s.on('error', () => undefined); // surfaces on the requests; the next call reconnects
    s.on('goaway', () => s.close());
    s.on('close', () => session === s && (session = undefined));
    s.unref(); // an idle session does not keep the process alive
    session = s;
    return s;
  }

  function request(path: string, headers: http2.OutgoingHttpHeaders, body: string) {
    return new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const req = connection().request({ ':method': 'POST', ':path': path, ...headers });
        req.setTimeout(settings.timeoutMs, () => req.close(http2.constants.NGHTTP2_CANCEL));
        let status = 0;
        let reply: http2.IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        req.on('response', (h) => {
          status = Number(h[':status']);
          reply = h;
        });
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve({ status, headers: reply, body: Buffer.concat(chunks).toString() }));
        req.on('close', () => status || reject(new Error('APNs stream closed without an answer')));
        req.on('error', reject);
        req.end(body);
      },
    );
  }

  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      // custom keys beside aps (Apple's layout); a custom `aps` cannot replace the alert
      const payload = {
        ...message.data,
        aps: { alert: { title: message.title, body: message.body }, sound: 'default' },
      };
      const headers: http2.OutgoingHttpHeaders = {
        authorization: `bearer ${await providerToken()}`,
        'apns-topic': settings.topic,
        'apns-push-type': 'alert',
        'apns-priority': '10',
        'content-type': 'application/json',
      };
      // Apple's limit for apns-collapse-id is 64 bytes
      if (message.collapseKey) headers['apns-collapse-id'] = message.collapseKey.slice(0, 64);
      let res;
      try {
        res = await request(
          `/3/device/${encodeURIComponent(message.token)}`,
          headers,
          JSON.stringify(payload),
        );
      } catch (err) {
        return { outcome: 'retry', reason: `network: ${(err as Error).message}` };
      }
      if (res.status === 200) return { outcome: 'sent' };
      const { reason = `HTTP ${res.status}`, timestamp } = readError(res.body);
      const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'] as string | undefined, now());
      if (res.status === 410 || reason === 'Unregistered')
        return { outcome: 'unregistered', reason, refusedAt: timestamp ?? now() };
      if (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic')
        return { outcome: 'invalid', reason, refusedAt: now() };
      if (res.status === 403 && reason === 'ExpiredProviderToken') {
        jwt = undefined; // signed anew for the retry
        return { outcome: 'retry', reason, retryAfterMs: 0 };
      }
      if (res.status === 429 || res.status >= 500) return { outcome: 'retry', reason, retryAfterMs };
      return { outcome: 'failed', reason };
    },
    close() {
      session?.close();
    },
  };
}

/** APNs' error body: `reason`, and with 410 the `timestamp` (ms) since which the token is invalid. */
function readError(body: string): { reason?: string; timestamp?: number } {
  try {
    const { reason, timestamp } = JSON.parse(body) as { reason?: unknown; timestamp?: unknown };
    return {
      ...(typeof reason === 'string' && { reason }),
      ...(typeof timestamp === 'number' && { timestamp }),
    };
  } catch {
    return {};
  }
}
