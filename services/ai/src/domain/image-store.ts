/** A generated image's description; its bytes are kept apart (see ImageStore). */
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

/** Where generated images live (the port the image use cases own); bytes are streamed out. */
export interface ImageStore {
  /** Stores the image and its bytes; when it fails, nothing of it is left. */
  save(image: StoredImage, data: Uint8Array): Promise<StoredImage>;
  /** The image, its size and a stream of its bytes; undefined when there is none. */
  open(
    id: string,
  ): Promise<(StoredImage & { length: number; content: AsyncIterable<Uint8Array> }) | undefined>;
  /** Erases every image of the user, descriptions and bytes (a deleted account); idempotent. */
  deleteAllOfUser(userId: string): Promise<number>;
}
