import { type Connection, Schema } from 'mongoose';

export interface ImageDocument {
  _id: string;
  userId: string;
  description: string;
  provider: string;
  contentType: string;
  width: number;
  height: number;
  data: Buffer;
  createdAt: Date;
}

const imageSchema = new Schema<ImageDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    description: { type: String, required: true },
    provider: { type: String, required: true },
    contentType: { type: String, required: true },
    width: { type: Number, required: true },
    height: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'images' },
);

export const imageModel = (connection: Connection) =>
  connection.models.Image ?? connection.model<ImageDocument>('Image', imageSchema);
