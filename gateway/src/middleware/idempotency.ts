import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '@lingua/errors';
import type { Logger } from '@lingua/logger';
import type { AccessPolicy } from '../domain/access-policy';
import type { Caller } from '../domain/caller';
import {
  answerFor,
  fingerprint,
  honoursKeyFor,
  IDEMPOTENCY_HEADER,
  type IdempotencyStore,
  keepsAnswer,
  keyOwner,
  parseIdempotencyKey,
  recordId,
  REPLAYED_HEADER,
  REPLAYED_HEADERS,
  type StoredAnswer,
} from '../domain/idempotency';

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a kept answer is replayed (the draft suggests at least 24 hours). */
  ttlSeconds: number;
  /** Answers larger than this are not kept (the key is released: a retry runs again). */
  maxAnswerBytes: number;
  /** How long a running request holds its key: past it (a replica that died) a retry may run. */
  leaseMs: number;
  /** The most a streamed body (upload, import) may have: read whole to fingerprint it. */
  maxBodyBytes(res: Response): number;
  logger: Logger;
}

/** What the proxy forwards instead of the stream it can no longer read (middleware/proxy.ts). */
export type BufferedRequest = IncomingMessage & { bufferedBody?: Buffer };

/** Seconds a retry that found its key still running is asked to wait. */
const RETRY_AFTER_S = 1;

/**
 * Idempotency-Key at the edge (docs/adr/0024), the one implementation: every POST and PATCH of an
 * authenticated operation sent with the header, whichever service it goes to and whatever its body
 * (JSON, multipart, none; the fast path hands such requests here). Runs after admission (the caller
 * is known, a replay is still authenticated and counted) and after the JSON body was read. The key
 * is claimed in Redis with the request's fingerprint; the answer is kept, before its last byte is
 * sent, so a client that has it and retries at once gets the replay, never a 409.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const { store, logger } = options;
  return (req, res, next) => {
    if (req.headers[IDEMPOTENCY_HEADER] === undefined) return next();
    const owner = keyOwner(res.locals.caller as Caller | undefined);
    const policy = res.locals.policy as AccessPolicy | undefined;
    if (!owner || !policy || !honoursKeyFor(req.method, policy)) return next();
    let key: string;
    try {
      key = parseIdempotencyKey(req.headers[IDEMPOTENCY_HEADER]);
    } catch (err) {
      return next(err);
    }
    const id = recordId(owner, req.method, req.path, key);
    const token = randomBytes(12).toString('base64url');
    bodyOf(req, options.maxBodyBytes(res))
      .then(async (body) => {
        const fp = fingerprint({ url: req.originalUrl, contentType: req.headers['content-type'], body });
        const held = await store.claim(id, fp, token, options.leaseMs).catch((err: unknown) => {
          throw new AppError('SERVICE_UNAVAILABLE', 'Idempotency keys are temporarily unavailable', {
            cause: err,
            headers: { 'Retry-After': '5' },
          });
        });
        if (held) return replay(res, answerFor(held, fp, RETRY_AFTER_S));
        keepAnswer(res, { ...options, id, token, fingerprint: fp });
        next();
      })
      .catch((err: unknown) => next(err));
  };

  function replay(res: Response, answer: StoredAnswer) {
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.setHeader(REPLAYED_HEADER, 'true');
    res.setHeader('Content-Length', answer.body.length);
    res.end(answer.body);
  }

  /** Records what is written and, when the answer ends, keeps it (or releases the key) before the last bytes go out. */
  function keepAnswer(
    res: Response,
    o: IdempotencyOptions & { id: string; token: string; fingerprint: string },
  ) {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    const record = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      if (size > o.maxAnswerBytes) return;
      const buffer = Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array);
      size += buffer.length;
      if (size <= o.maxAnswerBytes) chunks.push(buffer);
    };
    const release = () =>
      store.release(o.id, o.token).catch((err: unknown) => {
        // the claim runs out with its lease: a retry then runs the operation again
        logger.warn({ err }, 'idempotency: key not released');
      });
    const write = res.write;
    res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
      record(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    const end = res.end;
    res.end = function (this: Response, ...args: unknown[]) {
      if (ended) return (end as (...a: unknown[]) => Response).apply(this, args);
      ended = true;
      if (typeof args[0] !== 'function') record(args[0], args[1]);
      const status = this.statusCode;
      const kept = keepsAnswer(status) && size <= o.maxAnswerBytes;
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = this.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const done = kept
        ? store
            .complete(
              o.id,
              o.token,
              o.fingerprint,
              { status, headers, body: Buffer.concat(chunks) },
              o.ttlSeconds,
            )
            .catch((err: unknown) => {
              logger.warn({ err }, 'idempotency: answer not kept');
            })
        : release();
      void done.then(() => (end as (...a: unknown[]) => Response).apply(this, args));
      return this;
    } as typeof res.end;
    // A client that leaves before the answer does not release the key: the service may still be
    // applying the request (the proxy stops waiting for it, so its answer is not kept). The claim
    // runs out with its lease, when the service is done or past its deadline; until then a retry
    // gets 409, never a second run beside the first.
  }
}

/**
 * The request's body as the service will get it: the JSON the edge read and cleaned, as the proxy
 * sends it; else the stream, read whole (within `max`, else 413) and kept for the proxy to send.
 */
async function bodyOf(req: Request, max: number): Promise<Buffer> {
  const buffered = req as BufferedRequest;
  // serialised once: the proxy sends these bytes
  if (req.body !== undefined) return (buffered.bufferedBody = Buffer.from(JSON.stringify(req.body)));
  const length = req.headers['content-length'];
  if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined)
    return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // read on to the end, so the client gets the 413 rather than a reset connection
    if (size <= max) chunks.push(chunk);
  }
  if (size > max)
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The request body is limited to ${Math.floor(max / 1024 / 1024)} MB`,
      {
        details: { max_bytes: max },
      },
    );
  buffered.bufferedBody = Buffer.concat(chunks);
  // forwarded with its length now known; a chunked framing header would contradict it
  delete req.headers['transfer-encoding'];
  req.headers['content-length'] = String(size);
  return buffered.bufferedBody;
}
