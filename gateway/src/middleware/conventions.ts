import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import express from 'express';
import compression from 'compression';
import cors from 'cors';
import helmet from 'helmet';
import { OutputBudget, decodeAll, isContentCoding } from '@lingua/decompress';
import { AppError } from '@lingua/errors';
import { API_VERSION } from '@lingua/http';
import { isPremium, type Caller } from '../domain/caller';
import { cleanMarkup, jsonDepth } from '../domain/json-input';

/** Headers a browser client may read (request ids, rate limits, caching). */
const EXPOSED = [
  'X-Request-ID',
  'X-Correlation-ID',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'ETag',
  'API-Version',
  'Content-Language',
  'Idempotent-Replayed',
];

export function corsFor(origins: string[]): RequestHandler {
  return cors({
    origin: origins.length === 0 ? false : origins,
    credentials: true,
    exposedHeaders: EXPOSED,
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept-Language',
      'X-Timezone',
      'X-Request-ID',
      'X-Correlation-ID',
      'X-Debug-Mode',
      'X-API-Key',
      'X-Client-ID',
      'If-None-Match',
      'If-Modified-Since',
      'Idempotency-Key',
    ],
    maxAge: 600,
  });
}

/** helmet's defaults, with a CSP that lets the local Swagger UI at /docs run (its own inline bits): for the HTML pages. */
const pageSecurityHeaders = helmet({
  contentSecurityPolicy: {
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      // TLS ends in front of the gateway; upgrading would break /docs served over plain http
      'upgrade-insecure-requests': null,
    },
  },
  crossOriginResourcePolicy: { policy: 'same-site' },
});

/**
 * JSON responses get the set the OWASP REST Security Cheat Sheet gives for APIs, stricter where it
 * matters (nothing may load, frame or be framed by an API response) and without helmet's headers
 * that only act on HTML documents (COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 * X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection): six headers instead of
 * twelve, about 400 bytes less on every API response.
 */
export const apiSecurityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] },
  },
  crossOriginResourcePolicy: { policy: 'same-site' },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** Paths that serve HTML (the Swagger UI and its assets). */
const isPagePath = (path: string) => path === '/docs' || path.startsWith('/docs/');

/** The HTML set on /docs, the API set on everything else. */
export const securityHeaders: RequestHandler = (req, res, next) =>
  (isPagePath(req.path) ? pageSecurityHeaders : apiSecurityHeaders)(req, res, next);

const compressor = compression({ threshold: 1024 });
/** gzip / deflate / br as the client accepts (nothing to negotiate without Accept-Encoding); bodies under 1 KB are not worth it. */
export const compress: RequestHandler = (req, res, next) =>
  req.headers['accept-encoding'] ? compressor(req, res, next) : next();

const LANGUAGE_LIST =
  /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*(;q=[01](\.\d{0,3})?)?(\s*,\s*([A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*|\*)(;q=[01](\.\d{0,3})?)?)*$/;

function validTimeZone(tz: string): boolean {
  if (tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The Cache-Control of a response the service did not mark: reads revalidate (ETag), writes are not stored. */
export const defaultCacheControl = (method: string | undefined) =>
  method === 'GET' || method === 'HEAD' ? 'private, no-cache' : 'no-store';

/**
 * X-Timezone must be an IANA zone (400 otherwise: a client bug worth seeing; server times stay UTC);
 * a malformed Accept-Language is dropped rather than refused. API-Version names the version served.
 * Shared by the express stack and the fast path; returns the error to answer with, if any.
 */
export function checkConventions(
  req: IncomingMessage,
  path: string,
  res: ServerResponse,
): AppError | undefined {
  const tz = req.headers['x-timezone'];
  if (tz !== undefined && (typeof tz !== 'string' || !validTimeZone(tz)))
    return new AppError('VALIDATION_ERROR', 'X-Timezone must be an IANA time zone', {
      details: { 'X-Timezone': ['must be an IANA time zone such as Europe/Berlin'] },
    });
  const lang = req.headers['accept-language'];
  if (lang !== undefined && (lang.length > 200 || !LANGUAGE_LIST.test(lang)))
    delete req.headers['accept-language'];
  res.setHeader('API-Version', (path.startsWith('/api/v') && VERSIONED.exec(path)?.[1]) || API_VERSION);
  return undefined;
}
const VERSIONED = /^\/api\/(v\d+)\//;

/**
 * The conventions above, and reads the service did not mark get `private, no-cache` (revalidate
 * with ETag), writes `no-store`.
 */
export const apiConventions: RequestHandler = (req, res, next) => {
  const error = checkConventions(req, req.path, res);
  if (error) return next(error);
  const writeHead = res.writeHead;
  res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
    if (!this.getHeader('cache-control')) this.setHeader('Cache-Control', defaultCacheControl(req.method));
    return writeHead.apply(this, args);
  } as typeof writeHead;
  next();
};

/** The largest upload the caller's plan allows (spec: 10 MB free, 50 MB premium). */
export const uploadLimitFor = (
  caller: Caller | undefined,
  limits: { uploadFreeBytes: number; uploadPremiumBytes: number },
) =>
  caller?.kind === 'user' && isPremium(caller.claims) ? limits.uploadPremiumBytes : limits.uploadFreeBytes;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;
/** A Content-Type's charset parameter; the name is group 2. */
const CHARSET = /;\s*charset=("?)([^";\s]+)\1/i;

/**
 * JSON bodies are read here (the gateway needs them): over the limit 413, malformed 400, nested
 * deeper than the limit 400, markup removed from strings; the proxy then sends the cleaned body.
 * A compressed body (Content-Encoding gzip, deflate, br, zstd) is decoded by @lingua/decompress,
 * the limit counting its decoded bytes as they come, and travels on uncompressed: the proxy would
 * otherwise compress it again, synchronously (brotli at its default quality: about 2 s of the event
 * loop per MB). The JSON travels as UTF-8, and says so. Uploads (multipart) are streamed untouched,
 * refused with 413 above the plan's size and with 411 without a Content-Length (a chunked upload
 * could not be held to the size before it is sent on).
 */
export function bodyCheck(limits: {
  jsonBytes: number;
  maxDepth: number;
  uploadFreeBytes: number;
  uploadPremiumBytes: number;
}): BodyCheck {
  // body-parser reads the raw request (the response goes unused): the same parser on both paths
  const parse = express.json({
    limit: limits.jsonBytes,
    // compressed bodies never reach it (decodedJson below)
    inflate: false,
    type: (req) => JSON_TYPE.test(String(req.headers['content-type'] ?? '')),
  });
  const accept = (req: BodyRequest, done: (err?: unknown) => void) => {
    if (req.body === undefined) return done();
    if (jsonDepth(req.body, limits.maxDepth) > limits.maxDepth)
      return done(new AppError('INVALID_INPUT', `JSON nesting deeper than ${limits.maxDepth} levels`));
    req.body = cleanMarkup(req.body);
    // the proxy sends the cleaned body with a Content-Length; a chunked framing header would contradict it
    delete req.headers['transfer-encoding'];
    // re-serialised as UTF-8, whatever charset body-parser decoded (utf-16 among them)
    const type = req.headers['content-type'];
    if (type && CHARSET.test(type)) req.headers['content-type'] = type.replace(CHARSET, '; charset=utf-8');
    done();
  };
  return (req, caller, done) => {
    const type = String(req.headers['content-type'] ?? '');
    if (/^multipart\//i.test(type)) {
      const max = uploadLimitFor(caller, limits);
      if (req.headers['content-length'] === undefined)
        return done(
          new AppError('INVALID_INPUT', 'Uploads must carry a Content-Length', {
            status: 411,
            details: { max_bytes: max },
          }),
        );
      const length = Number(req.headers['content-length']);
      if (length > max)
        return done(
          new AppError('PAYLOAD_TOO_LARGE', `Uploads are limited to ${Math.floor(max / 1024 / 1024)} MB`, {
            details: { max_bytes: max },
          }),
        );
      return done();
    }
    if (!JSON_TYPE.test(type)) return done();
    const coding = String(req.headers['content-encoding'] ?? 'identity')
      .trim()
      .toLowerCase();
    if (coding !== 'identity') {
      return decodedJson(req, coding, limits.jsonBytes).then(
        (body) => {
          req.body = body;
          delete req.headers['content-encoding'];
          accept(req, done);
        },
        (err: unknown) => done(err),
      );
    }
    parse(req as Request, undefined as unknown as Response, (err?: unknown) =>
      err ? done(err) : accept(req, done),
    );
  };
}

/** A request whose body the edge may have read (`body`: the JSON, cleaned). */
export type BodyRequest = IncomingMessage & { body?: unknown };

/** Reads (JSON) or size-checks (uploads) a request's body; `done` gets the refusal, if any. */
export type BodyCheck = (req: BodyRequest, caller: Caller | undefined, done: (err?: unknown) => void) => void;

/** The express face of the body check. */
export function bodyLimits(check: BodyCheck): RequestHandler {
  return (req, res, next) => check(req, res.locals.caller as Caller | undefined, next);
}

const invalidJson = () => new AppError('INVALID_INPUT', 'Request body is not valid JSON');

/**
 * A compressed JSON body, decoded within `limit` bytes (its compressed form too: many empty gzip
 * members decode to nothing but still cost their decoding). As express.json: UTF-8, an object or an
 * array, an empty body is {}. On a refusal the rest of the body is read off first, so that the client
 * gets the answer rather than a reset connection.
 */
async function decodedJson(req: IncomingMessage, coding: string, limit: number): Promise<unknown> {
  if (coding === 'deflate-raw' || !isContentCoding(coding))
    throw new AppError('INVALID_INPUT', 'Unsupported request encoding', { status: 415 });
  const charset = CHARSET.exec(String(req.headers['content-type']))?.[2];
  if (charset && charset.toLowerCase() !== 'utf-8')
    throw new AppError('INVALID_INPUT', 'Unsupported request encoding', { status: 415 });
  // read through a pipe: stopping early must not destroy the request (and its socket) with it
  const body = new PassThrough();
  req.pipe(body);
  // a client that leaves mid-body ends the read (a pipe does not pass an abort on)
  req.once('close', () => {
    if (!req.readableEnded) body.destroy(new Error('the client closed the connection'));
  });
  const sent = new OutputBudget(limit, 'The request body');
  async function* counted() {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      sent.spend(chunk.length);
      yield chunk;
    }
  }
  let text: string;
  try {
    text = (await decodeAll(counted(), coding, new OutputBudget(limit, 'The request body'))).toString('utf8');
  } catch (err) {
    req.unpipe(body);
    if (!req.readableEnded && !req.destroyed) {
      const drained = new Promise((resolve) => req.once('end', resolve).once('close', resolve));
      req.resume();
      await drained;
    }
    throw err;
  }
  if (text.trim() === '') return {};
  if (!/^[\s\uFEFF]*[{[]/.test(text)) throw invalidJson();
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw invalidJson();
  }
}
