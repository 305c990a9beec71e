import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import { type AppError, catalogueCodeOf } from '@lingua/errors';
import { currentRequestContext } from '@lingua/logger';
import { API_VERSION, type EnvelopeStyle, envelopeStyleFor } from './envelope-style';
import { currentLanguage, type MessageKey, translate } from './i18n';

function meta(style: EnvelopeStyle, requestId: string | undefined) {
  const timestamp = new Date().toISOString();
  if (style === 'auth') return { timestamp, requestId, api_version: API_VERSION };
  if (style === 'shared') return { timestamp, request_id: requestId, api_version: API_VERSION };
  return { timestamp, requestId };
}

/** Body of a successful response in the given family. */
export function successBody(
  style: EnvelopeStyle,
  data: unknown,
  message?: string,
  extraMeta?: Record<string, unknown>,
) {
  const requestId = currentRequestContext()?.requestId;
  switch (style) {
    case 'plain':
      return data;
    case 'flashcards':
      return { success: true, data, ...(message !== undefined && { message }) };
    default:
      return {
        success: true,
        data,
        ...(message !== undefined && { message }),
        meta: { ...meta(style, requestId), ...extraMeta },
      };
  }
}

/**
 * The text of a success body for `dataJson` (data already serialised; undefined leaves `data` out, as
 * JSON.stringify does), and a weak entity tag over what the resource is: the body without its
 * per-request `meta` (timestamp, request id), which would otherwise change the tag on every request.
 */
export function successText(
  style: EnvelopeStyle,
  dataJson: string | undefined,
  message?: string,
): { text: string; etag: string } {
  if (style === 'plain') {
    const text = dataJson ?? '';
    return { text, etag: weakTag(text) };
  }
  const parts = ['"success":true'];
  if (dataJson !== undefined) parts.push(`"data":${dataJson}`);
  if (message !== undefined) parts.push(`"message":${JSON.stringify(message)}`);
  const resource = `{${parts.join(',')}}`;
  const etag = weakTag(resource);
  if (style === 'flashcards') return { text: resource, etag };
  const perRequest = JSON.stringify(meta(style, currentRequestContext()?.requestId));
  return { text: `${resource.slice(0, -1)},"meta":${perRequest}}`, etag };
}

const weakTag = (text: string) => `W/"${createHash('sha1').update(text).digest('base64url')}"`;

/**
 * The message a reader of another language gets: the code's, from the catalogue (the English
 * message, often more specific, stays the English reader's).
 */
const messageOf = (err: AppError) =>
  currentLanguage() === 'en' ? err.message : translate(`error.${err.code}` as MessageKey);

/** Body of an error response in the given family. 5xx messages are generic: no internals leak. */
export function errorBody(style: EnvelopeStyle, error: AppError) {
  const err = { code: error.code, message: messageOf(error), details: error.details };
  const requestId = currentRequestContext()?.requestId;
  const details = err.details ?? {};
  switch (style) {
    case 'flashcards':
      return { success: false, error: err.message };
    case 'shared':
      return {
        success: false,
        data: null,
        message: err.message,
        error: { code: err.code, message: err.message, details },
        meta: meta(style, requestId),
      };
    case 'catalogue':
      return {
        success: false,
        error: { code: catalogueCodeOf(err.code), message: err.message, details },
        meta: meta(style, requestId),
      };
    default:
      return {
        success: false,
        error: { code: err.code, message: err.message, details },
        meta: meta(style, requestId),
      };
  }
}

/** The error body for a request path, in its family (plain paths answer errors as the catalogue does). */
export function errorBodyForPath(path: string, err: AppError) {
  const style = envelopeStyleFor(path.split('?')[0]!);
  return errorBody(style === 'plain' ? 'catalogue' : style, err);
}

export function sendSuccess(
  res: Response,
  data: unknown,
  options: { status?: number; message?: string; style?: EnvelopeStyle } = {},
) {
  sendSuccessJson(res, JSON.stringify(data) as string | undefined, options);
}

/**
 * sendSuccess for data already serialised. A 200 to a read carries the resource's ETag, and express
 * answers 304 when the client's If-None-Match holds it.
 */
export function sendSuccessJson(
  res: Response,
  dataJson: string | undefined,
  options: { status?: number; message?: string; style?: EnvelopeStyle } = {},
) {
  const style = options.style ?? (res.locals.envelopeStyle as EnvelopeStyle | undefined) ?? 'catalogue';
  const { text, etag } = successText(style, dataJson, options.message);
  const status = options.status ?? 200;
  const method = res.req?.method;
  if (status === 200 && (method === 'GET' || method === 'HEAD') && !res.get('ETag')) res.set('ETag', etag);
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.status(status).send(text);
}

/**
 * A JSON answer written on plain node:http, for the answers given outside express (shed, still
 * starting): never cached, with its length.
 */
export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
