import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type ImageType = 'jpeg' | 'png' | 'webp';

/** Where avatar images live: local disk by default; an object store fits the same interface. */
export interface AvatarStorage {
  /** Stores the image and returns the public name it is served under. */
  save(userId: string, data: Buffer, type: ImageType): Promise<string>;
  read(name: string): Promise<{ data: Buffer; type: ImageType } | undefined>;
  remove(name: string): Promise<void>;
}

/** Names are `<random>.<ext>`: unguessable, and never a path (checked before any file access). */
export const AVATAR_NAME = /^[A-Za-z0-9_-]{16,64}\.(jpeg|png|webp)$/;

export function localDiskAvatarStorage(dir: string): AvatarStorage {
  const root = path.resolve(dir);
  return {
    async save(_userId, data, type) {
      await mkdir(root, { recursive: true });
      const name = `${randomBytes(18).toString('base64url')}.${type}`;
      await writeFile(path.join(root, name), data);
      return name;
    },
    async read(name) {
      const m = AVATAR_NAME.exec(name);
      if (!m) return undefined;
      try {
        return { data: await readFile(path.join(root, name)), type: m[1] as ImageType };
      } catch {
        return undefined;
      }
    },
    async remove(name) {
      if (AVATAR_NAME.test(name)) await unlink(path.join(root, name)).catch(() => undefined);
    },
  };
}
