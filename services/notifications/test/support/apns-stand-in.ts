import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt, decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';

export interface ScriptedAnswer {
  status: number;
  reason?: string;
  retryAfter?: string;
  /** With 410: since when (ms) the token is invalid, as Apple's body gives it. */
  timestamp?: number;
}

export interface ApnsRequest {
  token: string;
  headers: http2.IncomingHttpHeaders;
  payload: { aps: { alert: { title: string; body: string } } } & Record<string, unknown>;
  jwt: string;
  jwtIssuedAt: number;
  at: number;
}

/**
 * A local APNs: a real HTTP/2 server (cleartext h2c: TLS is not what is tested here) speaking
 * Apple's provider API: POST /3/device/<token> with a bearer ES256 provider token that it verifies
 * with the key's public half (kid, iss = team, no older than an hour: 403 otherwise), then answers
 * what the test scripted for that token (200 by default).
 */
export async function startApnsStandIn(options: {
  publicKeyPem: string;
  keyId: string;
  teamId: string;
  topic: string;
  now?: () => number;
  delayMs?: number;
  /** Apple's limit is an hour; lower, it stands for Apple expiring a token early. */
  maxTokenAgeSeconds?: number;
  /** Serve TLS with this key and certificate (HTTP/2 negotiated by ALPN, as Apple does). */
  tls?: { key: string; cert: string };
}) {
  const now = options.now ?? Date.now;
  const publicKey = await importSPKI(options.publicKeyPem, 'ES256');
  const scripts = new Map<string, ScriptedAnswer[]>();
  const requests: ApnsRequest[] = [];
  const refused: string[] = [];
  let inFlight = 0;
  let peakInFlight = 0;

  const server = options.tls
    ? http2.createSecureServer({ key: options.tls.key, cert: options.tls.cert, allowHTTP1: false })
    : http2.createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      inFlight++;
      peakInFlight = Math.max(peakInFlight, inFlight);
      void answer(stream, headers, Buffer.concat(chunks).toString()).finally(() => inFlight--);
    });
  });

  function reply(
    stream: http2.ServerHttp2Stream,
    status: number,
    reason?: string,
    retryAfter?: string,
    timestamp?: number,
  ) {
    if (stream.destroyed) return;
    stream.respond({
      ':status': status,
      'apns-id': crypto.randomUUID(),
      ...(retryAfter && { 'retry-after': retryAfter }),
      ...(reason && { 'content-type': 'application/json' }),
    });
    stream.end(
      reason ? JSON.stringify({ reason, ...(timestamp !== undefined && { timestamp }) }) : undefined,
    );
  }

  async function answer(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: string) {
    if (options.delayMs) await sleep(options.delayMs);
    const match = /^\/3\/device\/([^/]+)$/.exec(String(headers[':path']));
    if (headers[':method'] !== 'POST' || !match) return reply(stream, 404, 'BadPath');
    const bearer = /^bearer (\S+)$/.exec(String(headers.authorization ?? ''))?.[1];
    if (!bearer) return reply(stream, 403, 'MissingProviderToken');
    let iat: number;
    try {
      if (decodeProtectedHeader(bearer).kid !== options.keyId) throw new Error('kid');
      const { payload } = await jwtVerify(bearer, publicKey, {
        algorithms: ['ES256'],
        issuer: options.teamId,
        currentDate: new Date(now()),
      });
      iat = payload.iat!;
    } catch {
      refused.push(bearer);
      return reply(stream, 403, 'InvalidProviderToken');
    }
    if (now() / 1000 - iat > (options.maxTokenAgeSeconds ?? 3600))
      return reply(stream, 403, 'ExpiredProviderToken');
    if (headers['apns-topic'] !== options.topic) return reply(stream, 400, 'BadTopic');
    if (!['alert', 'background'].includes(String(headers['apns-push-type'])))
      return reply(stream, 400, 'InvalidPushType');
    const token = decodeURIComponent(match[1]!);
    requests.push({
      token,
      headers,
      payload: JSON.parse(body) as ApnsRequest['payload'],
      jwt: bearer,
      jwtIssuedAt: decodeJwt(bearer).iat!,
      at: Date.now(),
    });
    const scripted = scripts.get(token)?.shift();
    if (!scripted || scripted.status === 200) return reply(stream, 200);
    return reply(stream, scripted.status, scripted.reason, scripted.retryAfter, scripted.timestamp);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  return {
    url: `${options.tls ? 'https' : 'http'}://localhost:${(server.address() as AddressInfo).port}`,
    requests,
    refused,
    /** The answers the next requests for this token get, in order; then 200. */
    script: (token: string, ...answers: ScriptedAnswer[]) => scripts.set(token, answers),
    get peakInFlight() {
      return peakInFlight;
    },
    resetPeak: () => (peakInFlight = 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
