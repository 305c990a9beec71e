import { randomUUID } from 'node:crypto';
import type { AccessTokenInput } from '@lingua/auth';
import { type RunningService, startService } from '@lingua/bootstrap';
import { type EventData, type EventName, makeEvent } from '@lingua/contracts';
import { isolatedServiceEnv, signTestCaller, TestClock } from '@lingua/testing';
import { loadServiceConfig } from '../src/config';
import { defineFlashcardsService } from '../src/start';

export const DAY = 86_400_000;

/** The flashcards service in this process: free ports, its own database and stream, a clock the test moves. */
export async function startFlashcards(
  overrides: Record<string, string> = {},
  start = '2026-03-10T09:00:00Z',
) {
  const env = isolatedServiceEnv(overrides);
  const config = loadServiceConfig(env);
  const clock = new TestClock(start);
  const service = await startService(defineFlashcardsService(config, { clock }));
  return { service, clock, config, env };
}

export async function stopFlashcards(service: RunningService | undefined) {
  if (!service) return;
  await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
  await service.stop();
}

/** A caller through the gateway (token and flashcards' assertion) for a new (or given) user, at the test clock's time. */
export function tokenFor(service: RunningService, clock: TestClock, user: Partial<AccessTokenInput> = {}) {
  const signed = signTestCaller(
    { audience: 'flashcards', key: service.deps.config.assertionKey },
    user,
    clock,
  );
  return { ...signed, auth: signed.headers };
}

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

/** fetch against the service, JSON in and out. */
export async function call(
  service: RunningService,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const res = await fetch(`${service.httpUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body !== undefined && {
      body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    }),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** A client bound to one user. */
export function clientFor(service: RunningService, auth: Record<string, string>) {
  return (method: string, path: string, body?: unknown) =>
    call(service, method, path, { headers: auth, ...(body !== undefined && { body }) });
}

export async function publish<N extends EventName>(service: RunningService, name: N, data: EventData<N>) {
  const event = makeEvent(name, data);
  await service.deps.publisher.publish(event);
  return event;
}

export const sampleCard = (word: string, extra: Record<string, unknown> = {}) => ({
  word,
  translation: `${word}-translation`,
  definition: `definition of ${word}`,
  ...extra,
});

/** A new user whose every request carries a token fresh at the test clock's time (tests move the clock by days). */
export function newUserClient(service: RunningService, clock: TestClock, sub: string = randomUUID()) {
  return {
    sub,
    auth: () => tokenFor(service, clock, { sub }).auth,
    api: (method: string, path: string, body?: unknown) =>
      call(service, method, path, {
        headers: tokenFor(service, clock, { sub }).auth,
        ...(body !== undefined && { body }),
      }),
  };
}
