import { finished } from 'node:stream/promises';
import type { mongo } from 'mongoose';

/** GridFS accepts any `_id`; the driver's types ask for an ObjectId. Our ids are unguessable strings. */
export const fileId = (id: string) => id as unknown as mongo.ObjectId;

/**
 * Streams `content` into a GridFS file with the given id, one write at a time: each write's callback
 * comes after its chunk is stored, so memory holds at most one chunk (255 KiB) per upload, and when
 * `content` throws no chunk insert is still in flight; the chunks already written are then deleted
 * (GridFS writes the files document last, so a failed upload is never visible to readers).
 */
export async function streamIntoBucket(
  bucket: mongo.GridFSBucket,
  id: string,
  metadata: Record<string, unknown>,
  content: AsyncIterable<Uint8Array>,
): Promise<void> {
  const upload = bucket.openUploadStreamWithId(fileId(id), id, { metadata });
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) => upload.write(chunk, (err) => (err ? reject(err) : resolve())));
  try {
    for await (const chunk of content) await write(chunk);
    upload.end();
    await finished(upload);
  } catch (err) {
    upload.destroy();
    // deletes the chunks even when no files document was written (the usual case here)
    await bucket.delete(fileId(id)).catch(() => undefined);
    throw err;
  }
}
