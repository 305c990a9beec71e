import { randomBytes } from 'node:crypto';
import { type HttpReply, httpCall } from '@lingua/testing';
import type { InProcessStack } from './in-process-stack';

// What the *-through-gateway tests share: a caller that talks to the gateway with the global fetch
// (so test/openapi-recorder.setup.ts sees every answer), each request from a client address of its
// own (the gateway trusts loopback's X-Forwarded-For), so no test spends another's per-address budget.

/** A fresh client address (documentation and private ranges only). */
export const clientAddress = () =>
  `10.${randomBytes(1)[0]! % 250}.${randomBytes(1)[0]! % 250}.${randomBytes(1)[0]! % 250}`;

export interface CallOptions {
  body?: unknown;
  /** multipart or binary, sent untouched */
  raw?: NonNullable<RequestInit['body']>;
  token?: string;
  headers?: Record<string, string>;
  /** the client address; a fresh one when not given */
  from?: string;
}

/** A caller of the gateway at `base()` (read when called: the stack starts in beforeAll). */
export function gatewayCaller(base: () => string) {
  return (method: string, path: string, o: CallOptions = {}): Promise<HttpReply> =>
    httpCall(base(), method, path, {
      ...(o.body !== undefined && { body: o.body }),
      ...(o.raw !== undefined && { raw: o.raw }),
      headers: {
        'x-forwarded-for': o.from ?? clientAddress(),
        ...(o.token && { authorization: `Bearer ${o.token}` }),
        ...o.headers,
      },
    });
}

/** A unique, valid set of credentials. */
export function newCredentials(prefix = 'g') {
  const tag = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return {
    email: `${prefix}${tag}@example.com`,
    username: `${prefix}_${tag}`.slice(0, 20),
    password: 'Secret123',
  };
}

/** Stops the stack and drops the databases of its services. */
export async function stopAndDrop(stack: InProcessStack | undefined) {
  if (!stack) return;
  await stack.stop();
  for (const s of Object.values(stack.services))
    await s.deps.mongo.connection.dropDatabase().catch(() => undefined);
}
