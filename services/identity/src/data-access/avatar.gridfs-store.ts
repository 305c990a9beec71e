import { type Connection, mongo } from 'mongoose';
import type { AvatarStore, ImageType } from '../domain/avatar-store';
import { AVATAR_NAME } from '../domain/avatar-store';
import { fileId, streamIntoBucket } from './gridfs-upload';

/** GridFS bucket of the avatars (collections `avatars.files` and `avatars.chunks`). */
export const AVATAR_BUCKET = 'avatars';

/**
 * Avatars in the service's own database, in GridFS (the MongoDB driver's GridFSBucket): every
 * replica serves every file, and nothing is written to the container's disk. The file's `_id` is
 * its public name, so a download is one lookup by primary key.
 */
export function gridFsAvatarStore(connection: Connection): AvatarStore {
  let bucket: mongo.GridFSBucket | undefined;
  // the connection's Db exists once connected; the store is built before that
  const files = () => {
    if (!connection.db) throw new Error('avatar store: the database is not connected');
    return (bucket ??= new mongo.GridFSBucket(connection.db, { bucketName: AVATAR_BUCKET }));
  };
  return {
    save: (name, owner, content) => streamIntoBucket(files(), name, { owner }, content),
    async open(name) {
      const file = await files()
        .find({ _id: fileId(name) })
        .limit(1)
        .next();
      if (!file) return undefined;
      const type = AVATAR_NAME.exec(name)?.[1] as ImageType;
      return { type, length: file.length, content: files().openDownloadStream(fileId(name)) };
    },
    async remove(name) {
      // GridFSBucket.delete() throws when the file is missing; removal is idempotent here
      await files()
        .delete(fileId(name))
        .catch((err: unknown) => {
          if (!(err instanceof mongo.MongoRuntimeError) || !/File not found/i.test(err.message)) throw err;
        });
    },
  };
}
