import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';

/**
 * For `pipeline(body, res).catch(ignoreClientGone)` on a streamed answer: the client going away
 * mid-download (ERR_STREAM_PREMATURE_CLOSE) is not a server error; anything else (the source
 * failing) still is, and reaches the error handler (which closes the half-sent answer).
 */
export function ignoreClientGone(err: unknown): void {
  if ((err as { code?: unknown } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
  throw err;
}

/**
 * A stored file whose bytes never change under its name (an image by random id): streamed with a
 * strong ETag made of that name, or 304 without touching the stored bytes when the client's
 * If-None-Match already holds it (an app's image cache revalidating after eviction).
 */
export async function sendImmutableFile(
  req: Request,
  res: Response,
  file: {
    name: string;
    contentType: string;
    length: number;
    content: AsyncIterable<Uint8Array>;
    cacheControl: string;
  },
): Promise<void> {
  res
    .status(200)
    .type(file.contentType)
    .set('ETag', `"${file.name.replace(/[^\w.-]/g, '')}"`)
    .set('Cache-Control', file.cacheControl)
    .set('X-Content-Type-Options', 'nosniff');
  if (req.fresh) {
    // not read: a stream is released, a lazy source never opened
    (file.content as { destroy?: () => void }).destroy?.();
    res.status(304).end();
    return;
  }
  res.set('Content-Length', String(file.length));
  // streamed from GridFS, a few chunks at a time, whichever replica stored it
  await pipeline(file.content, res).catch(ignoreClientGone);
}
