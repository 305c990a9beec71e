import { finished } from 'node:stream/promises';
import { type Connection, mongo } from 'mongoose';
import type { IndexSpec } from './indexes';

/**
 * Files in the service's own database, in GridFS (the MongoDB driver's GridFSBucket): chunks of
 * 255 KiB in `<bucket>.chunks`, one document per file in `<bucket>.files`, written last. Works on
 * MongoDB and on the local FerretDB 2. Ids are strings chosen by the caller (unguessable names).
 */
export interface FileBucket {
  /**
   * Streams `content` in as file `id`. If `content` throws (too large, client gone), the chunks
   * written so far are deleted and the error is rethrown: a failed upload is never visible.
   */
  upload(
    id: string,
    content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    metadata?: Record<string, unknown>,
  ): Promise<void>;
  /** The file's size and a stream of its bytes; undefined when there is no such file. */
  open(id: string): Promise<{ length: number; content: AsyncIterable<Uint8Array> } | undefined>;
  /** Idempotent: deleting a missing file is not an error. */
  delete(id: string): Promise<void>;
  /** Deletes every file whose metadata has `key` = `value` (a user's files); returns how many. */
  deleteByMetadata(key: string, value: string): Promise<number>;
}

/** Bytes handed to the GridFS stream at once: 8 chunks of 255 KiB, inserted concurrently. */
const WRITE_BATCH = 8 * 255 * 1024;

/** GridFS accepts any `_id`; the driver's types ask for an ObjectId. */
const fileId = (id: string) => id as unknown as mongo.ObjectId;

export function fileBucket(connection: Connection, bucketName: string): FileBucket {
  let bucket: mongo.GridFSBucket | undefined;
  // the connection's Db exists once connected; stores are often built before that
  const files = () => {
    if (!connection.db) throw new Error(`file bucket ${bucketName}: the database is not connected`);
    return (bucket ??= new mongo.GridFSBucket(connection.db, { bucketName }));
  };
  const remove = (id: string) =>
    files()
      .delete(fileId(id))
      .catch((err: unknown) => {
        // GridFSBucket.delete() deletes the chunks, then throws when there was no files document
        if (!(err instanceof mongo.MongoRuntimeError) || !/File not found/i.test(err.message)) throw err;
      });
  return {
    async upload(id, content, metadata = {}) {
      const upload = files().openUploadStreamWithId(fileId(id), id, { metadata });
      // One write at a time, of WRITE_BATCH bytes: its callback comes once all its chunks are stored,
      // so an upload holds about two batches in memory, and when `content` throws no chunk insert is
      // still in flight. A batch of several chunks lets their inserts run side by side (one at a time,
      // a 50 MiB upload took 11 s on the local FerretDB; in batches of 2 MiB, 3 s).
      const write = (chunk: Uint8Array) =>
        new Promise<void>((resolve, reject) => upload.write(chunk, (err) => (err ? reject(err) : resolve())));
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const batch = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
        await write(batch);
      };
      try {
        for await (const chunk of content) {
          pending.push(chunk);
          pendingBytes += chunk.byteLength;
          if (pendingBytes >= WRITE_BATCH) await flush();
        }
        await flush();
        upload.end();
        await finished(upload);
      } catch (err) {
        upload.destroy();
        await remove(id).catch(() => undefined);
        throw err;
      }
    },
    async open(id) {
      const file = await files()
        .find({ _id: fileId(id) })
        .limit(1)
        .next();
      if (!file) return undefined;
      return { length: file.length, content: files().openDownloadStream(fileId(id)) };
    },
    delete: remove,
    async deleteByMetadata(key, value) {
      const found = await files()
        .find({ [`metadata.${key}`]: value }, { projection: { _id: 1 } })
        .toArray();
      for (const f of found) await remove(f._id as unknown as string);
      return found.length;
    },
  };
}

/**
 * The indexes GridFS reads by (the driver's own names and keys), for the service's index list, so
 * they are built and awaited at start like every other instead of on the first upload: chunks by
 * file and position (unique: a chunk is never stored twice), files by name and date.
 */
export const fileBucketIndexes = (bucketName: string): IndexSpec[] => [
  { collection: `${bucketName}.chunks`, key: { files_id: 1, n: 1 }, unique: true },
  { collection: `${bucketName}.files`, key: { filename: 1, uploadDate: 1 } },
];
