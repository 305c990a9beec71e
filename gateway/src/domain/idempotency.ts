import { createHash } from 'node:crypto';
import { AppError } from '@lingua/errors';
import type { AccessPolicy } from './access-policy';
import type { Caller } from './caller';

/**
 * The Idempotency-Key request header (IETF draft-ietf-httpapi-idempotency-key-header), pure rules.
 * The gateway keeps the first complete answer to a POST or PATCH sent with a key, per caller, and
 * answers a retry with it instead of running the operation again (docs/adr/0024).
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Marks an answer replayed from the store rather than produced by this request. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The methods that are not idempotent (RFC 9110 §9.2.2) and take a key; the header is ignored on others. */
const KEYED_METHODS = new Set(['POST', 'PATCH']);

/** Whether a request asks for idempotency: a keyed method with the header present. */
export const carriesIdempotencyKey = (method: string | undefined, headers: Record<string, unknown>) =>
  KEYED_METHODS.has(method ?? '') && headers[IDEMPOTENCY_HEADER] !== undefined;

/**
 * Operations where a key is honoured: a keyed method on an authenticated operation (`access`, or
 * `optional` when the caller is known). Public operations (sign-up, sign-in, password recovery,
 * store notifications) and guests are not: an answer kept for "whoever sends this key" could be
 * replayed to someone else, and those answers carry fresh tokens.
 */
export const honoursKeyFor = (method: string, policy: Pick<AccessPolicy, 'auth'>) =>
  KEYED_METHODS.has(method) && (policy.auth === 'access' || policy.auth === 'optional');

/** Whose keys these are: one user (whatever device or token) or one API key; guests have none. */
export function keyOwner(caller: Caller | undefined): string | undefined {
  if (caller?.kind === 'user') return `u:${caller.claims.sub}`;
  if (caller?.kind === 'apiKey') return `k:${caller.keyId}`;
  return undefined;
}

export const MAX_KEY_LENGTH = 255;

const invalid = (message: string) =>
  new AppError('VALIDATION_ERROR', message, { details: { 'Idempotency-Key': [message] } });

/**
 * The key from the header: the draft's structured-field string (`"…"`, with `\"` and `\\`), or, as
 * most clients send it, the bare value. 1 to 255 printable ASCII characters; anything else is a 400.
 */
export function parseIdempotencyKey(raw: string | string[] | undefined): string {
  if (Array.isArray(raw) || raw === undefined) throw invalid('Idempotency-Key must be sent once');
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = unquote(key.slice(1, -1));
  if (key.length === 0) throw invalid('Idempotency-Key must not be empty');
  if (key.length > MAX_KEY_LENGTH)
    throw invalid(`Idempotency-Key must be at most ${MAX_KEY_LENGTH} characters`);
  if (!/^[\x20-\x7e]+$/.test(key)) throw invalid('Idempotency-Key must be printable ASCII');
  return key;
}

/** The inside of a structured-field string: `\"` and `\\` escapes, no bare quote or backslash. */
function unquote(inner: string): string {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === '"') throw invalid('Idempotency-Key is not a valid quoted string');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = inner[++i];
    if (next !== '"' && next !== '\\') throw invalid('Idempotency-Key is not a valid quoted string');
    out += next;
  }
  return out;
}

/** The store's key of one (owner, method, path, key): hashed, so a key of any content fits. */
export const recordId = (owner: string, method: string, path: string, key: string) =>
  `${owner}:${createHash('sha256').update(`${method} ${path}\n${key}`).digest('base64url')}`;

const BOUNDARY = /;\s*boundary=("?)([^";]+)\1/i;

/**
 * What identifies the request's payload: its query, content type and body bytes. A multipart body
 * is taken without its boundary, which clients draw anew for each copy they send: a retry built
 * again from the same fields and files is the same payload.
 */
export function fingerprint(parts: { url: string; contentType: string | undefined; body: Buffer }): string {
  const type = parts.contentType ?? '';
  const hash = createHash('sha256').update(parts.url).update('\n');
  const boundary = /^multipart\//i.test(type) ? BOUNDARY.exec(type)?.[2] : undefined;
  if (!boundary) return hash.update(type).update('\n').update(parts.body).digest('base64url');
  hash.update(type.replace(BOUNDARY, '')).update('\n');
  const marker = Buffer.from(boundary, 'latin1');
  let from = 0;
  for (let at = parts.body.indexOf(marker); at >= 0; at = parts.body.indexOf(marker, from)) {
    hash.update(parts.body.subarray(from, at));
    from = at + marker.length;
  }
  return hash.update(parts.body.subarray(from)).digest('base64url');
}

/**
 * Whether an answer is kept for replay: what the operation decided (2xx, 3xx, 4xx), not a transient
 * refusal the client should retry (408, 425, 429) nor a server failure (5xx), after which the key
 * is released and a retry runs the operation again.
 */
export const keepsAnswer = (status: number) =>
  status < 500 && status !== 408 && status !== 425 && status !== 429;

/**
 * Response headers replayed with the body: what describes the answer itself. Rate-limit, request-id,
 * security and caching headers belong to each response and are set afresh on the replay.
 */
export const REPLAYED_HEADERS = [
  'content-type',
  'content-language',
  'content-disposition',
  'location',
  'etag',
  'last-modified',
  'link',
] as const;

/** A kept answer. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the store holds under a key: a request still running, or its kept answer. */
export type IdempotencyRecord =
  { state: 'pending'; fingerprint: string } | { state: 'done'; fingerprint: string; answer: StoredAnswer };

/** The store behind the rules (data-access/idempotency-store.ts). */
export interface IdempotencyStore {
  /** Takes the key for a request (`undefined`: taken, go on) or returns what holds it already. */
  claim(
    id: string,
    fingerprint: string,
    token: string,
    leaseMs: number,
  ): Promise<IdempotencyRecord | undefined>;
  /** Keeps the answer for `ttlSeconds`, if the claim is still this request's. */
  complete(
    id: string,
    token: string,
    fingerprint: string,
    answer: StoredAnswer,
    ttlSeconds: number,
  ): Promise<void>;
  /** Gives the key up (the request failed or its answer is not kept), if the claim is still this request's. */
  release(id: string, token: string): Promise<void>;
}

/** The answer to a request whose key is held already: a replay, or a refusal. */
export function answerFor(
  record: IdempotencyRecord,
  requestFingerprint: string,
  retryAfterSeconds: number,
): StoredAnswer {
  if (record.fingerprint !== requestFingerprint)
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used for this operation with a different request body',
    );
  if (record.state === 'pending')
    throw new AppError(
      'IDEMPOTENCY_IN_PROGRESS',
      'A request with this Idempotency-Key is still in progress',
      {
        headers: { 'Retry-After': String(retryAfterSeconds) },
      },
    );
  return record.answer;
}
