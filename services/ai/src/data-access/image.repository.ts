import { Readable } from 'node:stream';
import type { Connection, Model } from 'mongoose';
import { fileBucket } from '@lingua/mongo';
import type { ImageStore, StoredImage } from '../domain/image-store';
import { type ImageDocument, imageModel } from './image.model';

/** GridFS bucket of the image files (collections `images.files` and `images.chunks`). */
export const IMAGE_BUCKET = 'images';

const toStored = ({ _id, data: _data, ...rest }: ImageDocument): StoredImage => ({ id: _id, ...rest });

/**
 * Generated images: the description in the `images` collection, the bytes in GridFS under the same
 * id, so every replica serves every image and no document carries megabytes of binary. The file is
 * written first and the description last: a reader never finds a description without its file.
 */
export function imageRepository(connection: Connection): ImageStore {
  const model = imageModel(connection) as Model<ImageDocument>;
  const files = fileBucket(connection, IMAGE_BUCKET);
  return {
    async save(image, data) {
      const { id, ...rest } = image;
      await files.upload(id, [data], { userId: image.userId, contentType: image.contentType });
      try {
        await model.create({ _id: id, ...rest });
      } catch (err) {
        await files.delete(id).catch(() => undefined);
        throw err;
      }
      return image;
    },
    async open(id) {
      const doc = await model.findById(id).lean<ImageDocument>();
      if (!doc) return undefined;
      // images stored before GridFS carry their bytes inline (BSON Binary under lean())
      if (doc.data) {
        const raw = doc.data as unknown as { buffer?: Uint8Array } | Buffer;
        const data = Buffer.isBuffer(raw) ? raw : Buffer.from((raw as { buffer: Uint8Array }).buffer);
        return { ...toStored(doc), length: data.length, content: Readable.from([data]) };
      }
      const file = await files.open(id);
      return file && { ...toStored(doc), ...file };
    },
    async deleteAllOfUser(userId) {
      // descriptions first: a reader never finds a description without its file
      const { deletedCount } = await model.deleteMany({ userId });
      // every file of the user, also one whose description a failed save never wrote
      await files.deleteByMetadata('userId', userId);
      return deletedCount;
    },
  };
}
