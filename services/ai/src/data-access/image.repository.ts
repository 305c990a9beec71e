import type { Connection, Model } from 'mongoose';
import { type ImageDocument, imageModel } from './image.model';

export interface StoredImage {
  id: string;
  userId: string;
  description: string;
  provider: string;
  contentType: string;
  width: number;
  height: number;
  createdAt: Date;
}

const toStored = ({ _id, data: _data, ...rest }: ImageDocument): StoredImage => ({ id: _id, ...rest });

export function imageRepository(connection: Connection) {
  const model = imageModel(connection) as Model<ImageDocument>;
  return {
    async save(image: StoredImage & { data: Buffer }): Promise<StoredImage> {
      const { id, ...rest } = image;
      await model.create({ _id: id, ...rest });
      return toStored({ _id: id, ...rest });
    },
    /** The image and its bytes. */
    async findWithData(id: string): Promise<(StoredImage & { data: Buffer }) | undefined> {
      const doc = await model.findById(id).lean<ImageDocument>();
      if (!doc) return undefined;
      // lean() hands back BSON Binary; Buffer.from copies it into a plain Buffer
      const raw = doc.data as unknown as { buffer?: Uint8Array } | Buffer;
      const data = Buffer.isBuffer(raw) ? raw : Buffer.from((raw as { buffer: Uint8Array }).buffer);
      return { ...toStored(doc), data };
    },
  };
}
export type ImageRepository = ReturnType<typeof imageRepository>;
