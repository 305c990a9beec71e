/** Image types an avatar may have, told from the file's first bytes. */
export type ImageType = 'jpeg' | 'png' | 'webp';

/** Names are `<random>.<ext>`: unguessable, and never a path or a query (checked before any lookup). */
export const AVATAR_NAME = /^[A-Za-z0-9_-]{16,64}\.(jpeg|png|webp)$/;

/** A stored avatar, ready to be streamed out. */
export interface StoredAvatar {
  type: ImageType;
  /** Bytes, for Content-Length. */
  length: number;
  content: AsyncIterable<Uint8Array>;
}

/**
 * Where avatar images live (the port the avatar use cases own). Files are streamed in and out, so
 * neither an upload nor a download is ever held whole in memory, and any replica serves any file.
 */
export interface AvatarStore {
  /**
   * Stores `content` under `name`, reading it as it arrives. If `content` throws (too large, client
   * gone), nothing of it is kept and the error is rethrown.
   */
  save(name: string, owner: string, content: AsyncIterable<Uint8Array>): Promise<void>;
  /** undefined when there is no such avatar. */
  open(name: string): Promise<StoredAvatar | undefined>;
  /** Idempotent: removing a missing avatar is not an error. */
  remove(name: string): Promise<void>;
  /** Removes every avatar the user stored (a deleted account); idempotent. */
  removeAllOf(owner: string): Promise<number>;
}
