import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { devAssertionKey } from '@lingua/auth';
import type { RunningService } from '@lingua/bootstrap';
import { DEV_EMAIL_LINK_KEY, startService } from '@lingua/bootstrap';
import { type AccountMail, type AnyDomainEvent, openAccountMail } from '@lingua/contracts';
import { type RunningConsumer, startDurableConsumer } from '@lingua/events';
import {
  forwardedByGateway,
  httpCall,
  isolatedServiceEnv,
  silentLogger,
  TestClock,
  uniqueName,
  waitFor,
} from '@lingua/testing';
import { type IdentityConfig, loadServiceConfig } from '../src/config';
import { defineIdentityService } from '../src/start';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
type RequestBody = string | FormData;

export const APPLE_AUD = 'com.lingua.test';
export const GOOGLE_AUD = 'lingua-test.apps.googleusercontent.com';
export const APPLE_ISS = 'https://appleid.apple.com';
export const GOOGLE_ISS = 'https://accounts.google.com';

/** A loopback JWKS server from keys generated here: the providers' role in tests. */
export async function startJwksServer() {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
  return {
    url,
    privateKey,
    /** Signs an ID token with the served key (or another key, to forge). */
    sign: (
      claims: Record<string, unknown>,
      opts: { iss: string; aud: string; expSeconds?: number; iat?: number; key?: SigningKey; kid?: string },
    ) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'test-key-1' })
        .setIssuer(opts.iss)
        .setAudience(opts.aud)
        .setIssuedAt(opts.iat)
        .setExpirationTime(opts.expSeconds ?? Math.floor(Date.now() / 1000) + 600)
        .sign(opts.key ?? privateKey),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type JwksServer = Awaited<ReturnType<typeof startJwksServer>>;

export interface Harness {
  service: RunningService<IdentityConfig>;
  url: string;
  clock: TestClock;
  jwks: JwksServer;
  events: AnyDomainEvent[];
  /** The bytes of every message published on the event subjects, as the stream stores them. */
  rawEvents: string[];
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  request(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; raw?: RequestBody },
  ): Promise<Reply>;
  stop(): Promise<void>;
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/**
 * The identity service in this process on free ports, over the real FerretDB, NATS and Redis, with a
 * TestClock, a loopback JWKS for both providers and a recorder of every event it publishes.
 */
export async function startIdentity(env: Record<string, string> = {}): Promise<Harness> {
  const clock = new TestClock(new Date());
  const jwks = await startJwksServer();
  const config = loadServiceConfig(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      IDENTITY_COOKIE_SECURE: 'false',
      APPLE_JWKS_URL: jwks.url,
      APPLE_AUDIENCES: APPLE_AUD,
      GOOGLE_JWKS_URL: jwks.url,
      GOOGLE_AUDIENCES: GOOGLE_AUD,
      // nothing listens there: profile stats must degrade, not fail
      FLASHCARDS_ADDR: '127.0.0.1:1',
      ...env,
    }),
  );
  const service = await startService(defineIdentityService(config, { clock }));
  const events: AnyDomainEvent[] = [];
  const recorder: RunningConsumer = await startDurableConsumer(service.deps.nats, service.deps.bus, {
    durable: uniqueName('recorder'),
    events: '*',
    // the service's own clock: a test that moves it still sees the events it stamps
    now: () => clock.now(),
    logger: silentLogger(),
    handler: async (e) => void events.push(e),
  });

  // a plain subscription on the same subjects sees each message exactly as published to the stream
  const rawEvents: string[] = [];
  const rawSub = service.deps.nats.nc.subscribe(`${config.EVENTS_SUBJECT_PREFIX}.>`, {
    callback: (_err, msg) => void rawEvents.push(Buffer.from(msg.data).toString('utf8')),
  });

  const request: Harness['request'] = (method, p, init = {}) => httpCall(service.httpUrl, method, p, init);

  return {
    service,
    url: service.httpUrl,
    clock,
    jwks,
    events,
    rawEvents,
    request,
    post: (p, body, headers) =>
      request('POST', p, { ...(body !== undefined && { body }), ...(headers && { headers }) }),
    async stop() {
      rawSub.unsubscribe();
      await recorder.stop();
      await service.stop();
      await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
      await jwks.close();
    },
  };
}

let counter = 0;
/** A unique, valid registration body; each test's IP is unique too (X-Forwarded-For via a loopback proxy). */
export function newUser(overrides: Record<string, unknown> = {}) {
  const tag = `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return {
    email: `u${tag}@example.com`,
    password: 'Secret123',
    username: `u_${tag}`.slice(0, 20),
    ...overrides,
  };
}

export const ipHeader = () => ({
  'x-forwarded-for': `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
});

/** What the gateway forwards to identity for a bearer token (see forwardedByGateway). */
export const bearer = (token: string) =>
  forwardedByGateway(token, { audience: 'identity', key: devAssertionKey('identity') });

/** waitFor with a timeout fit for a loaded shared machine. */
export const eventually = <T>(assertion: () => T | Promise<T>) => waitFor(assertion, { timeoutMs: 60_000 });

/** What notifications does with an account e-mail event: opens its recipient and link (development key). */
export function openMail(event: { event: string; data: { mail: string } }): AccountMail {
  return openAccountMail(Buffer.from(DEV_EMAIL_LINK_KEY, 'base64'), event.event, event.data.mail);
}
