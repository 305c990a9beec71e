import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccessTokenInput } from '@lingua/auth';
import { type RunningService, startService } from '@lingua/bootstrap';
import { connectMongo } from '@lingua/mongo';
import { type EventData, type EventName, makeEvent } from '@lingua/contracts';
import { httpCall, isolatedServiceEnv, signTestCaller, waitFor as waitForBase } from '@lingua/testing';
import { loadServiceConfig } from '../src/config';
import { defineNotificationsService, type NotificationsOptions } from '../src/start';

/** waitFor with room for a loaded machine (the database is shared by every engineer's tests). */
export const waitFor = <T>(assertion: () => T | Promise<T>, options: { timeoutMs?: number } = {}) =>
  waitForBase(assertion, { timeoutMs: 30_000, ...options });

/** The service in this process on a free port, isolated database and stream; loopback webhooks allowed. */
export async function startNotifications(
  options: NotificationsOptions & { useSmtp?: boolean } = {},
  env: Record<string, string> = isolatedServiceEnv(),
) {
  const config = loadServiceConfig({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
  const { useSmtp, ...rest } = options;
  // identity is not running here: the owners the tests signed in as admins are the admins
  rest.owners ??= { isAdmin: async (userId) => ADMINS.has(userId) };
  // nor for push: the users have no devices
  rest.users ??= {
    reach: async () => ({
      found: true,
      pushNotifications: true,
      emailNotifications: false,
      email: '',
      language: '',
      devices: [],
    }),
    removeDevice: async () => undefined,
  };
  // without SMTP in the test, e-mails go nowhere (the e-mail tests start a real SMTP server)
  const mailer = useSmtp ? undefined : (options.mailer ?? { send: async () => undefined });
  const service = await startService(
    defineNotificationsService(config, { ...rest, ...(mailer && { mailer }) }),
  );
  return { service, env, config };
}

/**
 * Stops the service, then drops its database over a connection of its own. Never the other way
 * round: dropping a database the running consumer and worker still write to leaves FerretDB with a
 * half-created SQLite file it then refuses to start with.
 */
export async function stopAndDrop(service: RunningService | undefined) {
  if (!service) return;
  const { MONGO_URL, mongoDb } = service.deps.config;
  await service.stop();
  const handle = await connectMongo(MONGO_URL, mongoDb);
  await handle.connection.dropDatabase().catch(() => undefined);
  await handle.close();
}

/** A caller through the gateway (token and notifications' assertion) for a (new) user of the given role. */
/** Users a test signed in with the admin role: identity's answer about webhook owners here. */
const ADMINS = new Set<string>();

export function tokenFor(service: RunningService, user: Partial<AccessTokenInput> = {}) {
  const signed = signTestCaller({ audience: 'notifications', key: service.deps.config.assertionKey }, user);
  if (user.role === 'admin') ADMINS.add(signed.sub);
  return { ...signed, auth: signed.headers };
}

/** fetch against the service, JSON in and out. */
export function call(
  service: RunningService,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; base?: string } = {},
) {
  return httpCall(options.base ?? service.httpUrl, method, path, options);
}

export async function publish<N extends EventName>(
  service: RunningService,
  name: N,
  data: EventData<N>,
  id?: string,
) {
  const event = makeEvent(name, data, id ? { id } : {});
  await service.deps.publisher.publish(event);
  return event;
}

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback: records every request; `respond` decides the status per request
 * (default 200). It can be closed and reopened on the same port (receiver down, then up).
 */
export async function startReceiver(port = 0) {
  const received: ReceivedWebhook[] = [];
  let respond: (req: ReceivedWebhook) => { status: number; headers?: Record<string, string> } = () => ({
    status: 200,
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const answer = respond(r);
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${boundPort}/hooks`,
    port: boundPort,
    received,
    respondWith(fn: typeof respond) {
      respond = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
