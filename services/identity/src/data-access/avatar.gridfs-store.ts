import type { Connection } from 'mongoose';
import { fileBucket } from '@lingua/mongo';
import { AVATAR_NAME, type AvatarStore, type ImageType } from '../domain/avatar-store';

/** GridFS bucket of the avatars (collections `avatars.files` and `avatars.chunks`). */
export const AVATAR_BUCKET = 'avatars';

/**
 * Avatars in the service's own database, in GridFS: every replica serves every file, and nothing is
 * written to the container's disk. The file's id is its public name, so a download is one lookup by
 * primary key.
 */
export function gridFsAvatarStore(connection: Connection): AvatarStore {
  const files = fileBucket(connection, AVATAR_BUCKET);
  return {
    save: (name, owner, content) => files.upload(name, content, { owner }),
    async open(name) {
      const file = await files.open(name);
      if (!file) return undefined;
      return { ...file, type: AVATAR_NAME.exec(name)?.[1] as ImageType };
    },
    remove: (name) => files.delete(name),
    removeAllOf: (owner) => files.deleteByMetadata('owner', owner),
  };
}
